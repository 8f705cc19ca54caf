// Correct without tensor cores: one warp per query row, the online softmax in FP32.
// Lane l holds the head dimensions l, l + 32, ... of q and of the output row; a
// key's score is a warp sum (shuffles). Every key rescales the running sum and
// the output by exp(m_old - m_new): simple and exact, but about 20x slower than
// the tiled tensor-core version because K and V are re-read for every row.
#include <cuda_fp16.h>
#define BM 16         // rows per block: one per warp
#define THREADS 512

extern "C" __global__ __launch_bounds__(THREADS) void
flash_attention(const half* Q, const half* K, const half* V, half* O, int S, int D, int causal) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int i = blockIdx.x * BM + warp;
    if (i >= S) return;
    const size_t base = (size_t)blockIdx.y * S * D;
    const int per_lane = D / 32;  // 2 or 4
    float q[4], o[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int e = 0; e < per_lane; ++e) q[e] = __half2float(Q[base + (size_t)i * D + lane + 32 * e]);
    const float scale = rsqrtf((float)D);
    float m = -INFINITY, l = 0.0f;
    const int keys = causal ? i + 1 : S;
    for (int j = 0; j < keys; ++j) {
        const half* k = K + base + (size_t)j * D;
        float dot = 0.0f;
        for (int e = 0; e < per_lane; ++e) dot += q[e] * __half2float(k[lane + 32 * e]);
        for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
        const float s = dot * scale, m_new = fmaxf(m, s);
        const float alpha = expf(m - m_new), p = expf(s - m_new);  // alpha = 0 on the first key
        l = l * alpha + p;
        const half* v = V + base + (size_t)j * D;
        for (int e = 0; e < per_lane; ++e) o[e] = o[e] * alpha + p * __half2float(v[lane + 32 * e]);
        m = m_new;
    }
    for (int e = 0; e < per_lane; ++e) O[base + (size_t)i * D + lane + 32 * e] = __float2half(o[e] / l);
}
