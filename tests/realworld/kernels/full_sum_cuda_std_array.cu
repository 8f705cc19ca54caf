// expect: accepted — four independent accumulators in a cuda::std::array, combined with cuda::std::plus, then shuffles; std::uint32_t from <cuda/std/cstdint>
#include <cuda/std/array>
#include <cuda/std/functional>
#include <cuda/std/cstdint>

extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    cuda::std::array<float, 4> acc{};
    const cuda::std::uint32_t stride = gridDim.x * blockDim.x;
    cuda::std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < (cuda::std::uint32_t)N; i += 4 * stride) {
#pragma unroll
        for (int k = 0; k < 4; ++k) acc[k] += in[i + k * stride];
    }
    for (int k = 0; i < (cuda::std::uint32_t)N; i += stride, ++k) acc[k & 3] += in[i];
    cuda::std::plus<float> add;
    float v = add(add(acc[0], acc[1]), add(acc[2], acc[3]));
    for (int o = 16; o > 0; o >>= 1) v = add(v, __shfl_down_sync(0xffffffffu, v, o));
    __shared__ float warp_sums[8];
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (float w : warp_sums) total = add(total, w);
        atomicAdd(out, total);
    }
}
