// expect: accepted — llm.c layernorm_forward_kernel3 adapted to a block per row: each warp strides the row, cg::reduce, rsqrtf, __restrict__
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void layernorm(const float* __restrict__ x, const float* __restrict__ weight,
                                     const float* __restrict__ bias, float* __restrict__ y,
                                     int rows, int cols, float eps) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float shared_sum[32];
    const int idx = blockIdx.x;
    const float* xr = x + (size_t)idx * cols;
    const int num_warps = blockDim.x / 32;

    float sum = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) sum += xr[i];
    sum = cg::reduce(warp, sum, cg::plus<float>{});
    if (warp.thread_rank() == 0) shared_sum[warp.meta_group_rank()] = sum;
    block.sync();
    sum = cg::reduce(warp, warp.thread_rank() < num_warps ? shared_sum[warp.thread_rank()] : 0.0f, cg::plus<float>{});
    const float m = sum / cols;
    block.sync();

    float sq = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
        float d = xr[i] - m;
        sq += d * d;
    }
    sq = cg::reduce(warp, sq, cg::plus<float>{});
    if (warp.thread_rank() == 0) shared_sum[warp.meta_group_rank()] = sq;
    block.sync();
    sq = cg::reduce(warp, warp.thread_rank() < num_warps ? shared_sum[warp.thread_rank()] : 0.0f, cg::plus<float>{});
    const float s = rsqrtf(sq / cols + eps);

    float* yr = y + (size_t)idx * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float n = s * (__ldcs(xr + c) - m);
        __stcs(yr + c, n * weight[c] + bias[c]);
    }
}
