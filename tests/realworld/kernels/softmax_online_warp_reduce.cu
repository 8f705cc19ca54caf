// expect: accepted — online softmax (running max and rescaled sum in one pass), a functor-templated warp reduction, __expf, expf
struct MaxOp { __device__ float operator()(float a, float b) const { return fmaxf(a, b); } };
struct SumOp { __device__ float operator()(float a, float b) const { return a + b; } };

template <typename Op>
__device__ __forceinline__ float warp_all_reduce(float v, Op op) {
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) v = op(v, __shfl_xor_sync(0xffffffff, v, mask));
    return v;
}

template <typename Op>
__device__ float block_all_reduce(float v, Op op, float identity, float* smem) {
    v = warp_all_reduce(v, op);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    __syncthreads();
    if (lane == 0) smem[wid] = v;
    __syncthreads();
    v = lane < (blockDim.x >> 5) ? smem[lane] : identity;
    return warp_all_reduce(v, op);
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float smem[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float m = -INFINITY, d = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
        float v = xr[i];
        float m_new = fmaxf(m, v);
        d = d * expf(m - m_new) + expf(v - m_new);
        m = m_new;
    }
    const float row_max = block_all_reduce(m, MaxOp{}, -INFINITY, smem);
    d = (m == -INFINITY) ? 0.0f : d * __expf(m - row_max);
    const float row_sum = block_all_reduce(d, SumOp{}, 0.0f, smem);
    const float inv = 1.0f / row_sum;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) y[(size_t)blockIdx.x * cols + i] = __expf(xr[i] - row_max) * inv;
}
