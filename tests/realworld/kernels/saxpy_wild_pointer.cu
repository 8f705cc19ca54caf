// expect: runtime_error — every store lands 4 TiB past y (an index computed in the wrong units): an illegal address on any GPU
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long wrong = (long long)i + (1LL << 40);
        y[wrong] = a * x[i] + y[i];
    }
}
