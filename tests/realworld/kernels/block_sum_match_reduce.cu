// expect: accepted — __match_any_sync, __match_all_sync, __reduce_max_sync, __activemask, __nanosleep, coalesced_threads
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned group = __match_any_sync(0xffffffffu, blockIdx.x);   // the whole warp
    int pred;
    __match_all_sync(0xffffffffu, blockIdx.x, &pred);
    int lanes = __reduce_max_sync(0xffffffffu, (int)(threadIdx.x % 32)) + 1;
    __nanosleep(10);
    float v = i < N ? in[i] : 0.0f;
    cg::coalesced_group active = cg::coalesced_threads();   // taken where the whole warp is converged
    for (int offset = 16; offset > 0; offset /= 2) v += active.shfl_down(v, offset);
    unsigned voted = active.ballot(1), converged = __activemask();
    bool whole_warp = pred && __popc(group) == lanes && voted == 0xffffffffu && converged != 0u;
    if (active.thread_rank() == 0) atomicAdd(out, whole_warp ? v : -1.0f);
}
