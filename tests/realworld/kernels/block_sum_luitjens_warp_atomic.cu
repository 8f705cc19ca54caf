// expect: accepted — "Faster Parallel Reductions on Kepler": warpReduceSum with __shfl_down_sync, then every warp's lane 0 does its own atomicAdd (no shared memory)
__inline__ __device__ float warpReduceSum(float val) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2) val += __shfl_down_sync(0xffffffff, val, offset);
    return val;
}

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) sum += in[i];
    sum = warpReduceSum(sum);
    if ((threadIdx.x & (warpSize - 1)) == 0) atomicAdd(out, sum);
}
