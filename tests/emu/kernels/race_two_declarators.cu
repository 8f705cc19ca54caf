// Bad: the racy counter shares its declaration with another array (it went unchecked).
extern "C" __global__ void k(const float* in, float* out) {
    __shared__ int other[4], count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    int slot = count;
    count = slot + 1;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = in[0] * count + other[0] * 0;
}
