// expect: accepted — cooperative groups: tiled_partition<32>(this_thread_block()).shfl(value, 0), every lane loads its own candidate
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void basic_broadcast(float* output, const float* input, int size) {
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int first = blockIdx.x * blockDim.x;
    const int lane = warp.thread_rank();
    float mine = (lane < 4 && first + lane < size) ? input[first + lane] : 0.0f;
    // lanes 0-3 each hold one of the four; a butterfly over the first 4 lanes sums them
    mine += warp.shfl_xor(mine, 1);
    mine += warp.shfl_xor(mine, 2);
    float sum = warp.shfl(mine, 0);
    if (i < size) output[i] = input[i] + sum;
}
