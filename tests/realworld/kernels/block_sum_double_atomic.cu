// expect: accepted — per-warp sums kept in double: __shfl_xor_sync on double, atomicAdd(double*) into shared memory
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ double block_total;
    if (threadIdx.x == 0) block_total = 0.0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = i < N ? (double)in[i] : 0.0;
    for (int mask = 16; mask >= 1; mask /= 2) v += __shfl_xor_sync(0xffffffffu, v, mask);
    if ((threadIdx.x & 31) == 0) atomicAdd(&block_total, v);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(out, (float)block_total);
}
