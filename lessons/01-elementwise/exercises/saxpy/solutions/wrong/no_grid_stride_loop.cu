// Bug: one element per thread. With the grid capped at 1024 blocks of 256,
// elements from index 262,144 on are never touched.
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
