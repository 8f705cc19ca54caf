// expect: accepted — tiled_partition<16> with shfl_down, shfl_xor, ballot, any, all
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    auto block = cg::this_thread_block();
    auto tile = cg::tiled_partition<16>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < N ? in[i] : 0.0f;
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    float first = tile.shfl(v, 0);              // every lane gets the tile's sum
    float same = tile.shfl_xor(first, 1);
    unsigned voters = tile.ballot(i < N);
    bool any = tile.any(i < N), all = tile.all(first == same);
    if (tile.thread_rank() == 0 && any && all && voters != 0u) atomicAdd(out, v);
}
