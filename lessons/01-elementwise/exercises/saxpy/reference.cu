// Reference: grid-stride SAXPY.
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    // The grid may be smaller than n (it is capped at 1024 blocks), so each
    // thread strides by the size of the whole grid until it passes the end.
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = a * x[i] + y[i];
    }
}
