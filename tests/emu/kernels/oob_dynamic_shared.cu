// Bad: the launch gives 32 floats of dynamic shared memory, the kernel uses one per thread.
extern "C" __global__ void k(const float* in, float* out) {
    extern __shared__ float buf[];
    int t = threadIdx.x;
    buf[t] = in[t];
    __syncthreads();
    out[t] = buf[blockDim.x - 1 - t];
}
