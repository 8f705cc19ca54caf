// Correct, slower: one float per load instead of four. Still one register
// accumulator per thread and one atomic per block.
extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    __shared__ float partial[8];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) {
        acc += in[i];
    }
    for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float block_total = 0.0f;
        for (int w = 0; w < 8; ++w) block_total += partial[w];
        atomicAdd(out, block_total);
    }
}
