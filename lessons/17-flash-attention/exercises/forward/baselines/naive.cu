// Naive attention: one thread per query row, FP32 arithmetic on the FP16 inputs,
// no shared memory and no tensor cores. It walks the keys twice (max and sum,
// then the weighted sum of V) and keeps its output row in local memory.
#include <cuda_fp16.h>
extern "C" __global__ void attention_naive(const half* Q, const half* K, const half* V, half* O,
                                           int S, int D, int causal) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= S) return;
    const size_t base = (size_t)blockIdx.y * S * D;
    const half* q = Q + base + (size_t)i * D;
    const float scale = rsqrtf((float)D);
    const int keys = causal ? i + 1 : S;
    float m = -INFINITY, l = 0.0f;
    for (int j = 0; j < keys; ++j) {
        float dot = 0.0f;
        for (int c = 0; c < D; ++c) dot += __half2float(q[c]) * __half2float(K[base + (size_t)j * D + c]);
        m = fmaxf(m, dot * scale);
    }
    float o[128];
    for (int c = 0; c < D; ++c) o[c] = 0.0f;
    for (int j = 0; j < keys; ++j) {
        float dot = 0.0f;
        for (int c = 0; c < D; ++c) dot += __half2float(q[c]) * __half2float(K[base + (size_t)j * D + c]);
        const float p = expf(dot * scale - m);
        l += p;
        for (int c = 0; c < D; ++c) o[c] += p * __half2float(V[base + (size_t)j * D + c]);
    }
    for (int c = 0; c < D; ++c) O[base + (size_t)i * D + c] = __float2half(o[c] / l);
}
