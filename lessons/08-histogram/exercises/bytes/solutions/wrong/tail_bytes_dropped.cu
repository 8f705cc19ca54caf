// BUG: the loop reads whole 16-byte uint4 words only; the last N % 16 bytes
// (all of them when N < 16) are never counted.
extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int N) {
    __shared__ unsigned int s_hist[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) s_hist[i] = 0;
    __syncthreads();
    const uint4* vec = reinterpret_cast<const uint4*>(data);
    for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < N / 16; w += gridDim.x * blockDim.x) {
        const uint4 v = vec[w];
        const unsigned int parts[4] = {v.x, v.y, v.z, v.w};
        for (int p = 0; p < 4; ++p)
            for (int k = 0; k < 4; ++k) atomicAdd(&s_hist[(parts[p] >> (8 * k)) & 0xFF], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (s_hist[b]) atomicAdd(&bins[b], s_hist[b]);
}
