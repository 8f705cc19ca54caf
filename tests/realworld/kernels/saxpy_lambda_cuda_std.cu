// expect: accepted — a lambda, cuda::std::min (from <cuda/std/functional>) and numeric_limits from <cuda/std/limits>, <cfloat>
#include <cuda/std/limits>
#include <cuda/std/functional>
#include <cfloat>

extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    auto fma_op = [a](float xv, float yv) { return a * xv + yv; };
    const int stride = gridDim.x * blockDim.x;
    const int last = cuda::std::min(n, cuda::std::numeric_limits<int>::max() - stride);
    static_assert(cuda::std::numeric_limits<float>::max() == FLT_MAX, "same limits");
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < last; i += stride) y[i] = fma_op(x[i], y[i]);
}
