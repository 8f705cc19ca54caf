// expect: accepted — device assert() from <assert.h> that holds, <stdio.h>, <math.h>
#include <assert.h>
#include <stdio.h>
#include <math.h>

extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    assert(blockDim.x == 256);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < n; i += blockDim.x * gridDim.x) {
        assert(isfinite(x[i]));
        y[i] = a * x[i] + y[i];
    }
}
