// expect: accepted — __reduce_add_sync for integers under #if __CUDA_ARCH__ >= 800, shuffles for float
#include <cstdint>

__device__ uint32_t warp_count(uint32_t v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xffffffffu, v);
#else
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return __shfl_sync(0xffffffffu, v, 0);
#endif
}

template <typename T>
__device__ T warp_sum(T v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float sums[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t present = warp_count(i < N ? 1u : 0u);
    float v = warp_sum<float>(i < N ? in[i] : 0.0f);
    if (threadIdx.x % 32 == 0) sums[threadIdx.x / 32] = present > 0 ? v : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < 8; ++w) total += sums[w];
        atomicAdd(out, total);
    }
}
