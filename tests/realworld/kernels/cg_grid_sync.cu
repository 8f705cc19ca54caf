// expect: runtime_error — this_grid().sync() in a launch that is not cooperative
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    cg::grid_group grid = cg::this_grid();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) atomicAdd(out, in[i]);
    grid.sync();
}
