// expect: accepted — the headers learners write: <cuda_runtime.h>, <cstdint>, <cfloat>, <climits>, <cmath>, math_constants, uint
#include <cuda_runtime.h>
#include <cuda.h>
#include <cstdint>
#include <stdint.h>
#include <cfloat>
#include <climits>
#include <cmath>
#include <math_constants.h>
#include <cuda/std/limits>

extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    uint32_t start = blockIdx.x * blockDim.x + threadIdx.x;
    int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    uint tid = start;
    float lo = -FLT_MAX, inf = INFINITY;
    float scale = static_cast<float>(M_PI) / CUDART_PI_F;   // 1, as written two ways
    bool ok = INT_MAX > 0 && cuda::std::numeric_limits<float>::max() == FLT_MAX && -inf < lo;
    for (int64_t i = tid; i < n; i += stride) y[i] = ok ? a * scale * x[i] + y[i] : NAN;
}
