// expect: accepted — templated block size with explicit dispatch, cg::reduce over thread_block_tile<32>, extern __shared__ none
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

template <unsigned BLOCK_SIZE>
__device__ void full_sum_impl(const float* in, float* out, int n) {
    static_assert(BLOCK_SIZE % 32 == 0, "whole warps");
    constexpr unsigned WARPS = BLOCK_SIZE / 32;
    __shared__ float partial[WARPS];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float sum = 0.0f;
    for (int i = block.group_index().x * BLOCK_SIZE + block.thread_rank(); i < n; i += gridDim.x * BLOCK_SIZE)
        sum += in[i];
    sum = cg::reduce(tile, sum, cg::plus<float>());
    if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = sum;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        sum = tile.thread_rank() < WARPS ? partial[tile.thread_rank()] : 0.0f;
        sum = cg::reduce(tile, sum, cg::plus<float>());
        if (tile.thread_rank() == 0) atomicAdd(out, sum);
    }
}

extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    if (blockDim.x == 256) full_sum_impl<256>(in, out, N);
    else if (blockDim.x == 512) full_sum_impl<512>(in, out, N);
    else full_sum_impl<128>(in, out, N);
}
