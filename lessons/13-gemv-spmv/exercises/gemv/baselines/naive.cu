// Naive GEMV: one thread per row, a CPU's dot product in each. In every step
// the 32 threads of a warp read 32 different rows, K floats apart.
extern "C" __global__ void gemv_naive(const float* A, const float* x, float* y, int M, int K) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M) return;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += A[(size_t)row * K + k] * x[k];
    y[row] = sum;
}
