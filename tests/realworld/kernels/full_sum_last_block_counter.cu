// expect: accepted — threadfence reduction in one launch: per-block partials in a __device__ array, __threadfence(), atomicAdd ticket, the last block sums them
#define THREADS 256
#define BLOCKS 1024

__device__ float block_partials[BLOCKS];
__device__ unsigned int blocks_done;

__device__ __forceinline__ float warp_reduce(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ float block_reduce(float v) {
    __shared__ float sums[THREADS / 32];
    v = warp_reduce(v);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) sums[threadIdx.x >> 5] = v;
    __syncthreads();
    return warp_reduce((threadIdx.x & 31) < THREADS / 32 ? sums[threadIdx.x & 31] : 0.0f);
}

extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    __shared__ bool is_last;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) acc += in[i];
    acc = block_reduce(acc);
    if (threadIdx.x == 0) {
        block_partials[blockIdx.x] = acc;
        __threadfence();
        unsigned int prev = atomicAdd(&blocks_done, 1u);
        is_last = (prev == gridDim.x - 1);
    }
    __syncthreads();
    if (is_last) {
        float total = 0.0f;
        for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += __ldcg(&block_partials[b]);
        total = block_reduce(total);
        if (threadIdx.x == 0) {
            out[0] = total;
            blocks_done = 0;
        }
    }
}
