// BUG: the causal mask is missing: every row sees all S keys.
// Attention fused per query row: one warp per row, one pass over the keys with
// the online softmax, nothing written but O. Lane l holds dimensions l, l + 32,
// l + 64, l + 96 of q and of the output row (D <= 128); a score is a warp sum.
// Keys are taken 32 at a time: lane l computes the whole score of key k0 + l
// (q from shared memory), so the running max and sum move once per 32 keys,
// and each probability is broadcast to the warp for its V row.
#define ROWS 8  // warps (query rows) per block of 256 threads

extern "C" __global__ void attention_rows(const float* Q, const float* K, const float* V, float* O,
                                          int S, int D, int causal) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int i = blockIdx.x * ROWS + warp;
    if (i >= S) return;
    const size_t base = (size_t)blockIdx.y * S * D;
    __shared__ float qs[ROWS][128];
    for (int c = lane; c < D; c += 32) qs[warp][c] = Q[base + (size_t)i * D + c];
    __syncwarp();
    const float scale = rsqrtf((float)D);
    float o[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float m = -INFINITY, l = 0.0f;  // running max and sum, the same in every lane
    const int keys = S;
    for (int k0 = 0; k0 < keys; k0 += 32) {
        // lane l: the score of key k0 + l (its whole dot product)
        const int j = k0 + lane;
        float s = -INFINITY;
        if (j < keys) {
            const float* k = K + base + (size_t)j * D;
            float dot = 0.0f;
            for (int c = 0; c < D; ++c) dot += qs[warp][c] * k[c];
            s = dot * scale;
        }
        float mx = s;
        for (int off = 16; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
        const float m_new = fmaxf(m, mx);
        const float alpha = expf(m - m_new);  // 0 on the first chunk (m = -inf)
        const float p = expf(s - m_new);      // 0 for keys past the mask
        float sum = p;
        for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
        l = l * alpha + sum;
        m = m_new;
#pragma unroll
        for (int e = 0; e < 4; ++e) o[e] *= alpha;
        const int chunk = min(32, keys - k0);
        for (int t = 0; t < chunk; ++t) {  // O += p_t v_t, p_t broadcast from lane t
            const float pt = __shfl_sync(0xffffffffu, p, t);
            const float* v = V + base + (size_t)(k0 + t) * D;
#pragma unroll
            for (int e = 0; e < 4; ++e)
                if (lane + 32 * e < D) o[e] += pt * v[lane + 32 * e];
        }
    }
    const float inv = 1.0f / l;
#pragma unroll
    for (int e = 0; e < 4; ++e)
        if (lane + 32 * e < D) O[base + (size_t)i * D + lane + 32 * e] = o[e] * inv;
}
