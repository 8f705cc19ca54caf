// expect: accepted — threadFenceReduction sample: partial sums in a __device__ array, __threadfence(), atomicInc ticket, the last block adds them
#define BLOCK 256
#define MAX_BLOCKS 8192

__device__ float g_partials[MAX_BLOCKS];
__device__ unsigned int g_retired = 0;

__device__ float block_reduce(float v, float* warp_sums) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.0f;
    if (threadIdx.x < 32)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float warp_sums[BLOCK / 32];
    __shared__ bool am_last;
    int i = blockIdx.x * BLOCK + threadIdx.x;
    float s = block_reduce(i < N ? in[i] : 0.0f, warp_sums);
    if (threadIdx.x == 0) {
        g_partials[blockIdx.x] = s;
        __threadfence();                              // the partial is visible before the ticket
        unsigned ticket = atomicInc(&g_retired, gridDim.x);
        am_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (am_last) {
        float total = 0.0f;
        for (int b = threadIdx.x; b < gridDim.x; b += BLOCK) total += ((volatile float*)g_partials)[b];
        __syncthreads();                              // warp_sums is reused
        total = block_reduce(total, warp_sums);
        if (threadIdx.x == 0) {
            *out = total;
            g_retired = 0;                            // ready for the next launch
        }
    }
}
