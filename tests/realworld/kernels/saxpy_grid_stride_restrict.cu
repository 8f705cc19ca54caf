// expect: accepted — grid-stride loop, const __restrict__ pointers, #define BLOCK 256, CEIL_DIV macro, size_t index
#include <cuda_runtime.h>
#define BLOCK 256
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    static_assert(CEIL_DIV(1000, BLOCK) == 4, "CEIL_DIV rounds up");
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n;
         i += (size_t)gridDim.x * blockDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
