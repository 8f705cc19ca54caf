// Naive 2-D correlation: one thread per output, but threadIdx.x runs down the
// rows (x taken as the row index, as in maths). The 32 threads of a warp are
// a whole image row apart: every load of the warp touches 32 different lines.
extern "C" __global__ void conv2d_naive(const float* x, const float* w, float* y, int H, int W, int K) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= H || c >= W) return;
    const int R = K / 2;
    float sum = 0.0f;
    for (int i = 0; i < K; ++i)
        for (int j = 0; j < K; ++j) {
            const int gr = r + i - R, gc = c + j - R;
            if (gr >= 0 && gr < H && gc >= 0 && gc < W) sum += w[i * K + j] * x[(size_t)gr * W + gc];
        }
    y[(size_t)r * W + c] = sum;
}
