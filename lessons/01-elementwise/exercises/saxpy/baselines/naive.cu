// Naive baseline: one block of 256 threads walks the whole array.
extern "C" __global__ void saxpy_one_block(int n, float a, const float* x, float* y) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
