// Naive LayerNorm: one thread per row, three walks over the row (mean,
// variance, write). Neighbouring threads read addresses `cols` floats apart,
// so nothing coalesces: this is the kernel the lesson starts from.
extern "C" __global__ void layernorm_naive(const float* x, const float* weight, const float* bias,
                                           float* y, int rows, int cols, float eps) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += xr[c];
    float mean = s / cols;
    float q = 0.0f;
    for (int c = 0; c < cols; ++c) q += (xr[c] - mean) * (xr[c] - mean);
    float rstd = rsqrtf(q / cols + eps);
    for (int c = 0; c < cols; ++c) yr[c] = (xr[c] - mean) * rstd * weight[c] + bias[c];
}
