// Correct but uncoalesced: each thread copies a contiguous chunk. Accepted,
// and slow on a GPU: a warp's 32 accesses are a chunk apart.
extern "C" __global__ void gather(const float* in, const int* idx, float* out, int N) {
    const int threads = gridDim.x * blockDim.x;
    const int chunk = (N + threads - 1) / threads;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int end = min(N, (t + 1) * chunk);
    for (int i = t * chunk; i < end; ++i) out[i] = in[idx[i]];
}
