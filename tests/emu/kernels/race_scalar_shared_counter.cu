// Bad: every thread bumps one scalar __shared__ counter without an atomic.
extern "C" __global__ void k(const float* in, float* out) {
    __shared__ int count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    int slot = count;
    count = slot + 1;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = in[0] * count;
}
