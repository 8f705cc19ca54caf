// expect: wrong_answer — every thread adds its value to a __shared__ total with a plain +=, a read-modify-write that the block's warps interleave (lost updates); the total's declaration is spelled through a macro
#define BLOCK_SHARED __shared__
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    BLOCK_SHARED float total;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) total = 0.0f;
    __syncthreads();
    total += i < N ? in[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(out, total);
}
