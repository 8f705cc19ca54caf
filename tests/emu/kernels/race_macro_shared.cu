// Bad: the racy counter's declaration is spelled through a macro (it went unchecked).
#define BLOCK_SHARED __shared__
extern "C" __global__ void k(const float* in, float* out) {
    BLOCK_SHARED int count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    int slot = count;
    count = slot + 1;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = in[0] * count;
}
