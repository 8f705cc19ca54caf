// expect: wrong_answer — every thread adds its value to a __shared__ total with a plain +=, a read-modify-write that the block's warps interleave (lost updates); the total is declared beside the warps' array in one declaration
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float warp_sums[8], total;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) total = 0.0f;
    if (threadIdx.x < 8) warp_sums[threadIdx.x] = 0.0f;
    __syncthreads();
    total += i < N ? in[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(out, total + warp_sums[0]);
}
