// BUG: the shared histogram is never cleared. Shared memory keeps whatever the
// previous block on that multiprocessor left there, and those counts are added too.
extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int N) {
    __shared__ unsigned int s_hist[256];
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        atomicAdd(&s_hist[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (s_hist[b]) atomicAdd(&bins[b], s_hist[b]);
}
