// Naive 1-D correlation: a few thousand threads, each a contiguous chunk of
// outputs, as a CPU program would split the work. In each step the 32 threads
// of a warp are a whole chunk apart, so every load lands in its own line.
extern "C" __global__ void conv1d_naive(const float* x, const float* w, float* y, int N, int R) {
    const int threads = gridDim.x * blockDim.x;
    const int chunk = (N + threads - 1) / threads;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int end = min(N, (t + 1) * chunk);
    for (int i = t * chunk; i < end; ++i) {
        float sum = 0.0f;
        for (int k = -R; k <= R; ++k)
            if (i + k >= 0 && i + k < N) sum += w[k + R] * x[i + k];
        y[i] = sum;
    }
}
