// expect: wrong_answer — `i <= n`: the last thread writes one element past y (into the guard band)
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i <= n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}
