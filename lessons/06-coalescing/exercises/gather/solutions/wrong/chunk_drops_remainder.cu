// BUG: the chunk is N / threads rounded down, so the last N % threads
// elements belong to nobody (and for N < threads every chunk is empty).
extern "C" __global__ void gather(const float* in, const int* idx, float* out, int N) {
    const int threads = gridDim.x * blockDim.x;
    const int chunk = N / threads;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = t * chunk; i < (t + 1) * chunk; ++i) out[i] = in[idx[i]];
}
