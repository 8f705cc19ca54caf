// Attention fused per query row: O[bh][i] = softmax_j(Q[bh][i] . K[bh][j] / sqrt(D)) V[bh][j],
// keys j <= i when causal. Q, K, V, O: BH x S x D floats, D <= 128.
// Launch plan (fixed): grid = (ceil(S / 8), BH), block = 256: one warp per query row.
//
// This starter has the warp per row and the score of one key at a time, but no
// softmax: it sums exp(s) without the max and never rescales. Make it the online softmax.
// FILL-IN: constants and helper functions, if you want them
extern "C" __global__ void attention_rows(const float* Q, const float* K, const float* V, float* O,
                                          int S, int D, int causal) {
    // BEGIN FILL-IN
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int i = blockIdx.x * 8 + warp;
    if (i >= S) return;
    const size_t base = (size_t)blockIdx.y * S * D;
    float o[4] = {0.0f, 0.0f, 0.0f, 0.0f}, l = 0.0f;
    const int keys = causal ? i + 1 : S;
    for (int j = 0; j < keys; ++j) {
        float dot = 0.0f;
        for (int c = lane; c < D; c += 32) dot += Q[base + (size_t)i * D + c] * K[base + (size_t)j * D + c];
        for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
        const float p = expf(dot);  // TODO: scale, subtract the running max, rescale l and o when it grows
        l += p;
        for (int e = 0; e < 4; ++e)
            if (lane + 32 * e < D) o[e] += p * V[base + (size_t)j * D + lane + 32 * e];
    }
    for (int e = 0; e < 4; ++e)
        if (lane + 32 * e < D) O[base + (size_t)i * D + lane + 32 * e] = o[e] / l;
    // END FILL-IN
}
