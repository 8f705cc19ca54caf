// expect: time_limit_exceeded — the grid-stride loop's increment is `i + stride` (no assignment): every thread with work spins forever
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i + stride) {
        y[i] = a * x[i] + y[i];
    }
}
