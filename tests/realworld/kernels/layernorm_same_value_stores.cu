// expect: accepted — llm.c layernorm kernel 5: every lane of a warp stores the same sum, read after a barrier
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__device__ float block_sum(cg::thread_block_tile<32>& warp, float v, float* shared) {
    int num_warps = blockDim.x / 32, lane_id = threadIdx.x % 32;
    v = cg::reduce(warp, v, cg::plus<float>());
    shared[threadIdx.x / 32] = v;   // no lane_id == 0 guard: all 32 lanes store the same value
    __syncthreads();
    v = lane_id < num_warps ? shared[lane_id] : 0.0f;
    return cg::reduce(warp, v, cg::plus<float>());
}

extern "C" __global__ void layernorm(const float* x, const float* weight, const float* bias, float* y,
                                     int rows, int cols, float eps) {
    __shared__ float shared_sum[32];
    __shared__ float shared_sum2[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const float* row = x + static_cast<long long>(blockIdx.x) * cols;
    float sum = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) sum += row[i];
    float mean = block_sum(warp, sum, shared_sum) / cols;
    float sum2 = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) sum2 += (row[i] - mean) * (row[i] - mean);
    float rstd = rsqrtf(block_sum(warp, sum2, shared_sum2) / cols + eps);
    float* out = y + static_cast<long long>(blockIdx.x) * cols;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) out[i] = (row[i] - mean) * rstd * weight[i] + bias[i];
}
