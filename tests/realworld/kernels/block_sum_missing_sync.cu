// expect: wrong_answer — no __syncthreads() between the warps' partial sums and the first warp reading them
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float warp_sums[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < N ? in[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = v;
    if (threadIdx.x < 32) {
        v = threadIdx.x < 8 ? warp_sums[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
}
