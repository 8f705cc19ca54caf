// No shared memory: each thread computes its 8 outputs straight from global
// memory, skipping the taps that fall outside the image.
extern "C" __global__ void conv2d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int H, int W, int K) {
    const int R = K / 2;
    const int col = blockIdx.x * 32 + threadIdx.x;
    if (col >= W) return;
    for (int o = 0; o < 8; ++o) {
        const int row = blockIdx.y * 64 + threadIdx.y * 8 + o;
        if (row >= H) return;
        float sum = 0.0f;
        for (int i = 0; i < K; ++i)
            for (int j = 0; j < K; ++j) {
                const int gr = row + i - R, gc = col + j - R;
                if (gr >= 0 && gr < H && gc >= 0 && gc < W) sum += w[i * K + j] * x[gr * W + gc];
            }
        y[row * W + col] = sum;
    }
}
