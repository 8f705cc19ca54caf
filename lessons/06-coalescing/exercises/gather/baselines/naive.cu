// Naive gather: a few thousand threads, each a contiguous chunk of the array,
// as a CPU program would split the work. In each step the 32 threads of a warp
// are a whole chunk apart, so every access of the warp lands in its own line.
extern "C" __global__ void gather_naive(const float* in, const int* idx, float* out, int N) {
    const int threads = gridDim.x * blockDim.x;
    const int chunk = (N + threads - 1) / threads;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int end = min(N, (t + 1) * chunk);
    for (int i = t * chunk; i < end; ++i) out[i] = in[idx[i]];
}
