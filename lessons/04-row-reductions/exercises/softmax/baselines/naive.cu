// Naive softmax: one thread per row walks its row three times (max, sum, write).
// Neighbouring threads of a warp read addresses `cols` floats apart, so every
// load is a separate memory transaction: this is the kernel the lesson beats.
#define NEG_INF __int_as_float(0xff800000)  // -inf; NVRTC has no <math.h>
extern "C" __global__ void softmax_naive(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = NEG_INF;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, xr[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += expf(xr[c] - m);
    for (int c = 0; c < cols; ++c) yr[c] = expf(xr[c] - m) / s;
}
