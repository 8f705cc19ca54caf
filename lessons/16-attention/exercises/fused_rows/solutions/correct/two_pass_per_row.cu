// Correct, two passes per row instead of the online softmax: a warp first finds
// the row max and the sum of exp(s - max) (one key per lane at a time), then
// walks the keys again for the weighted sum of V. The scores are computed
// twice, but nothing is ever rescaled.
extern "C" __global__ void attention_rows(const float* Q, const float* K, const float* V, float* O,
                                          int S, int D, int causal) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int i = blockIdx.x * 8 + warp;
    if (i >= S) return;
    const size_t base = (size_t)blockIdx.y * S * D;
    const float* q = Q + base + (size_t)i * D;
    const float scale = rsqrtf((float)D);
    const int keys = causal ? i + 1 : S;
    float m = -INFINITY;
    for (int j = lane; j < keys; j += 32) {
        float dot = 0.0f;
        for (int c = 0; c < D; ++c) dot += q[c] * K[base + (size_t)j * D + c];
        m = fmaxf(m, dot * scale);
    }
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float l = 0.0f, o[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int j = 0; j < keys; ++j) {
        float dot = 0.0f;
        for (int c = lane; c < D; c += 32) dot += q[c] * K[base + (size_t)j * D + c];
        for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
        const float p = expf(dot * scale - m);
        l += p;
        for (int e = 0; e < 4; ++e)
            if (lane + 32 * e < D) o[e] += p * V[base + (size_t)j * D + lane + 32 * e];
    }
    for (int e = 0; e < 4; ++e)
        if (lane + 32 * e < D) O[base + (size_t)i * D + lane + 32 * e] = o[e] / l;
}
