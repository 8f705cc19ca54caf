// expect: accepted — std::fma, std::isfinite and std::fabs from <cmath> in device code (nvcc allows them; NVRTC has them only in the global namespace)
#include <cmath>

extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = std::fma(a, x[i], y[i]);
        y[i] = std::isfinite(v) ? v : std::fabs(v);
    }
}
