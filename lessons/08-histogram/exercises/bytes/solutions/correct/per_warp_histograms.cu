// One histogram per warp (8 per block): warps never wait for each other's
// counters. Bytes are read four at a time as 32-bit words where they are aligned.
#define WARPS 8

extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int N) {
    __shared__ unsigned int s_hist[WARPS][256];
    unsigned int* mine = s_hist[threadIdx.x / 32];
    for (int i = threadIdx.x; i < WARPS * 256; i += blockDim.x) (&s_hist[0][0])[i] = 0;
    __syncthreads();
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const int head = min(N, (int)((4 - (reinterpret_cast<unsigned long long>(data) & 3)) & 3));
    const int words = (N - head) / 4;
    const unsigned int* word = reinterpret_cast<const unsigned int*>(data + head);
    if (tid < head) atomicAdd(&mine[data[tid]], 1u);
    for (int w = tid; w < words; w += stride) {
        unsigned int v = word[w];
        for (int k = 0; k < 4; ++k, v >>= 8) atomicAdd(&mine[v & 0xFF], 1u);
    }
    for (int i = head + 4 * words + tid; i < N; i += stride) atomicAdd(&mine[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned int sum = 0;
        for (int w = 0; w < WARPS; ++w) sum += s_hist[w][b];
        if (sum) atomicAdd(&bins[b], sum);
    }
}
