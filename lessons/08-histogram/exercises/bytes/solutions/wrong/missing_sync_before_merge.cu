// BUG: no __syncthreads() between counting and merging: thread b adds bin b to
// the global result while other warps of the block are still counting into it.
extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int N) {
    __shared__ unsigned int s_hist[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) s_hist[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        atomicAdd(&s_hist[data[i]], 1u);
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (s_hist[b]) atomicAdd(&bins[b], s_hist[b]);
}
