// Naive cross-entropy: one thread per row walks its row three times (max, sum,
// gradient). Neighbouring threads of a warp read addresses `vocab` floats apart,
// so every load is a separate memory transaction: the kernel the lesson beats.
#define NEG_INF __int_as_float(0xff800000)  // -inf; NVRTC has no <math.h>
extern "C" __global__ void cross_entropy_naive(const float* logits, const int* targets, float* loss,
                                               float* grad, int rows, int vocab) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = logits + (size_t)row * vocab;
    float* gr = grad + (size_t)row * vocab;
    float m = NEG_INF;
    for (int c = 0; c < vocab; ++c) m = fmaxf(m, xr[c]);
    float s = 0.0f;
    for (int c = 0; c < vocab; ++c) s += expf(xr[c] - m);
    int target = targets[row];
    loss[row] = m + logf(s) - xr[target];
    for (int c = 0; c < vocab; ++c) gr[c] = (expf(xr[c] - m) / s - (c == target)) / rows;
}
