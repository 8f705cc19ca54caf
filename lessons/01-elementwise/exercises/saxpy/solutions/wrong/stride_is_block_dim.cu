// Bug: the loop strides by blockDim.x instead of the whole grid, so blocks
// overlap and most elements get a*x added several times.
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
