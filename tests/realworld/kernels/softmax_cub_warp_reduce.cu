// expect: accepted — gpu-only: CUB's WarpReduce (one warp per row, the other warps return), Sum and Reduce with a max functor
#include <cub/warp/warp_reduce.cuh>

struct MaxOp {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    using WarpReduce = cub::WarpReduce<float>;
    __shared__ typename WarpReduce::TempStorage temp;
    if (threadIdx.x >= 32) return;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, xr[c]);
    m = __shfl_sync(0xffffffffu, WarpReduce(temp).Reduce(m, MaxOp()), 0);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 32) s += __expf(xr[c] - m);
    __syncwarp();
    s = __shfl_sync(0xffffffffu, WarpReduce(temp).Sum(s), 0);
    for (int c = threadIdx.x; c < cols; c += 32) yr[c] = __expf(xr[c] - m) / s;
}
