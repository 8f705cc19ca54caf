// expect: accepted — threads past N return first; the lanes left reduce over cg::coalesced_threads()
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;                                    // the last warp's tail exits here
    cg::coalesced_group active = cg::coalesced_threads();  // the lanes still running
    float v = cg::reduce(active, in[i], cg::plus<float>());
    if (active.thread_rank() == 0) atomicAdd(out, v);
}
