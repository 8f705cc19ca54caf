// Naive attention: one thread per query row, straight from global memory. It
// walks the keys twice (max and sum, then the weighted sum of V) and keeps its
// output row in local memory. No scratch, no shared memory, no reuse.
extern "C" __global__ void attention_naive(const float* Q, const float* K, const float* V, float* O,
                                           int S, int D, int causal) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= S) return;
    const size_t base = (size_t)blockIdx.y * S * D;
    const float* q = Q + base + (size_t)i * D;
    const float scale = rsqrtf((float)D);
    const int keys = causal ? i + 1 : S;
    float m = -INFINITY, l = 0.0f;
    for (int j = 0; j < keys; ++j) {
        float dot = 0.0f;
        for (int c = 0; c < D; ++c) dot += q[c] * K[base + (size_t)j * D + c];
        m = fmaxf(m, dot * scale);
    }
    float o[128];
    for (int c = 0; c < D; ++c) o[c] = 0.0f;
    for (int j = 0; j < keys; ++j) {
        float dot = 0.0f;
        for (int c = 0; c < D; ++c) dot += q[c] * K[base + (size_t)j * D + c];
        const float p = expf(dot * scale - m);
        l += p;
        for (int c = 0; c < D; ++c) o[c] += p * V[base + (size_t)j * D + c];
    }
    for (int c = 0; c < D; ++c) O[base + (size_t)i * D + c] = o[c] / l;
}
