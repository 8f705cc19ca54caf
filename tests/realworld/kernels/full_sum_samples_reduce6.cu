// expect: accepted — the CUDA samples' reduce6 shape for a fixed grid: two loads per loop trip (the nIsPow2 template flag, set where N is a multiple of 2 * 256), cooperative-groups tile shfl_down for the last warp
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

template <unsigned int blockSize, bool nIsPow2>
__device__ void reduce6(const float* g_idata, float* g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    float mySum = 0.0f;
    while (i < n) {
        mySum += g_idata[i];
        if (nIsPow2 || i + blockSize < n) mySum += g_idata[i + blockSize];
        i += gridSize;
    }
    sdata[tid] = mySum;
    cg::sync(cta);
    if ((blockSize >= 512) && (tid < 256)) sdata[tid] = mySum = mySum + sdata[tid + 256];
    cg::sync(cta);
    if ((blockSize >= 256) && (tid < 128)) sdata[tid] = mySum = mySum + sdata[tid + 128];
    cg::sync(cta);
    if ((blockSize >= 128) && (tid < 64)) sdata[tid] = mySum = mySum + sdata[tid + 64];
    cg::sync(cta);
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    if (cta.thread_rank() < 32) {
        if (blockSize >= 64) mySum += sdata[tid + 32];
        for (int offset = tile32.size() / 2; offset > 0; offset /= 2) mySum += tile32.shfl_down(mySum, offset);
    }
    if (cta.thread_rank() == 0) atomicAdd(g_odata, mySum);
}

extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    bool whole = N % (2 * 256) == 0;   // every trip's second load is in bounds
    if (whole) reduce6<256, true>(in, out, N);
    else reduce6<256, false>(in, out, N);
}
