// expect: accepted — gpu-only: CUB's WarpReduce and BlockScan from their own headers
#include <cub/warp/warp_reduce.cuh>
#include <cub/block/block_scan.cuh>

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    using WarpReduce = cub::WarpReduce<float>;
    using BlockScan = cub::BlockScan<float, 256>;
    __shared__ typename WarpReduce::TempStorage warp_temp[8];
    __shared__ typename BlockScan::TempStorage scan_temp;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < N ? in[i] : 0.0f;
    float warp_total = WarpReduce(warp_temp[threadIdx.x / 32]).Sum(v);
    float contribution = threadIdx.x % 32 == 0 ? warp_total : 0.0f;
    float block_total;
    float prefix;
    BlockScan(scan_temp).InclusiveSum(contribution, prefix, block_total);
    if (threadIdx.x == 0) atomicAdd(out, block_total);
}
