// BUG: the shared counter is incremented with a plain ++, a read-modify-write
// that two threads can interleave: both read 7, both write 8, one count is lost.
extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int N) {
    __shared__ unsigned int s_hist[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) s_hist[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        s_hist[data[i]]++;
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (s_hist[b]) atomicAdd(&bins[b], s_hist[b]);
}
