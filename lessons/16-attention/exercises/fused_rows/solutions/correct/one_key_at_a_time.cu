// Correct, the plainest online softmax: one key per step. The warp sums the
// score (shuffles), then every lane rescales its running sum and its output
// dimensions by exp(m_old - m_new) and adds the new key. Exact, but the max,
// sum and rescale run once per key instead of once per 32 keys.
extern "C" __global__ void attention_rows(const float* Q, const float* K, const float* V, float* O,
                                          int S, int D, int causal) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int i = blockIdx.x * 8 + warp;
    if (i >= S) return;
    const size_t base = (size_t)blockIdx.y * S * D;
    float q[4], o[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int e = 0; e < 4; ++e) q[e] = lane + 32 * e < D ? Q[base + (size_t)i * D + lane + 32 * e] : 0.0f;
    const float scale = rsqrtf((float)D);
    float m = -INFINITY, l = 0.0f;
    const int keys = causal ? i + 1 : S;
    for (int j = 0; j < keys; ++j) {
        const float* k = K + base + (size_t)j * D;
        float dot = 0.0f;
        for (int e = 0; e < 4; ++e)
            if (lane + 32 * e < D) dot += q[e] * k[lane + 32 * e];
        for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
        const float s = dot * scale, m_new = fmaxf(m, s);
        const float alpha = expf(m - m_new), p = expf(s - m_new);
        l = l * alpha + p;
        const float* v = V + base + (size_t)j * D;
        for (int e = 0; e < 4; ++e)
            if (lane + 32 * e < D) o[e] = o[e] * alpha + p * v[lane + 32 * e];
        m = m_new;
    }
    for (int e = 0; e < 4; ++e)
        if (lane + 32 * e < D) O[base + (size_t)i * D + lane + 32 * e] = o[e] / l;
}
