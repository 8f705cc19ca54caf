// expect: accepted — correct, with a printf in every thread (output is capped on both backends)
#include <cstdio>
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    extern __shared__ float warp_sums[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < N ? in[i] : 0.0f;
    printf("thread %d of block %d: v = %f\n", threadIdx.x, blockIdx.x, v);
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < blockDim.x / 32; ++w) total += warp_sums[w];
        atomicAdd(out, total);
    }
}
