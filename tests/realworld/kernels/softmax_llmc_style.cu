// expect: accepted — llm.c softmax style: -INFINITY, cooperative-groups warp reductions, __expf, fmaxf
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float scratch[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int warps = blockDim.x / 32, lane = warp.thread_rank(), wid = warp.meta_group_rank();
    const float* row = x + static_cast<long long>(blockIdx.x) * cols;
    float maxval = -INFINITY;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) maxval = fmaxf(maxval, row[i]);
    maxval = cg::reduce(warp, maxval, cg::greater<float>());
    if (lane == 0) scratch[wid] = maxval;
    block.sync();
    maxval = cg::reduce(warp, lane < warps ? scratch[lane] : -INFINITY, cg::greater<float>());
    block.sync();
    float sum = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) sum += __expf(row[i] - maxval);
    sum = cg::reduce(warp, sum, cg::plus<float>());
    if (lane == 0) scratch[wid] = sum;
    block.sync();
    sum = cg::reduce(warp, lane < warps ? scratch[lane] : 0.0f, cg::plus<float>());
    float* out = y + static_cast<long long>(blockIdx.x) * cols;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) out[i] = __expf(row[i] - maxval) / sum;
}
