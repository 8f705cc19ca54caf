// expect: runtime_error — a device assert() that fails (the kernel assumes 128 threads per block, the launch has 256)
#include <cassert>

extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    assert(blockDim.x == 128);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
