// Bug: `i <= n` also updates y[n], one element past the end of the array.
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += stride) {
        y[i] = a * x[i] + y[i];
    }
}
