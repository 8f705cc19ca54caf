// expect: accepted — threads past N return before the second __syncthreads(); since Volta exited threads no longer hold a barrier up (the emulator reports the skipped barrier, and judges the result)
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float block_total;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) block_total = 0.0f;
    __syncthreads();
    if (i >= N) return;
    atomicAdd(&block_total, in[i]);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(out, block_total);
}
