// expect: accepted — row max by an atomicCAS loop on the float's bits (atomicMax for floats), the sum by atomicAdd on a __shared__ float
__device__ float atomicMaxFloat(float* addr, float value) {
    int* addr_as_int = (int*)addr;
    int old = *addr_as_int, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value) break;
        old = atomicCAS(addr_as_int, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float row_max, row_sum;
    const float* xr = x + (size_t)blockIdx.x * cols;
    if (threadIdx.x == 0) { row_max = -INFINITY; row_sum = 0.0f; }
    __syncthreads();
    float m = -INFINITY;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) m = fmaxf(m, xr[i]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffff, m, o));
    if ((threadIdx.x & 31) == 0) atomicMaxFloat(&row_max, m);
    __syncthreads();
    const float mx = row_max;
    float s = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) s += expf(xr[i] - mx);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(&row_sum, s);
    __syncthreads();
    const float inv = __frcp_rn(row_sum);
    for (int i = threadIdx.x; i < cols; i += blockDim.x) y[(size_t)blockIdx.x * cols + i] = expf(xr[i] - mx) * inv;
}
