// Good: a scalar __shared__ total, zeroed by one thread, added to with atomics.
extern "C" __global__ void k(const float* in, float* out, int n) {
    __shared__ float total;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) total = 0.0f;
    __syncthreads();
    if (i < n) atomicAdd(&total, in[i]);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}
