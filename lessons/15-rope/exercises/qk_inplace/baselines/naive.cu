// Naive RoPE: one thread per (token, head), walking the pairs of its head.
// Neighbouring threads are head_dim elements apart (nothing coalesces), and
// every head recomputes the same powf and sincosf as every other head.
#include <cuda_bf16.h>

extern "C" __global__ void rope_naive(__nv_bfloat16* q, __nv_bfloat16* k, int tokens, int heads,
                                      int kv_heads, int head_dim, int pos_offset, float theta) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    int nh = heads + kv_heads;
    if (id >= tokens * nh) return;
    int t = id / nh, h = id % nh;
    __nv_bfloat16* v = h < heads ? q + ((size_t)t * heads + h) * head_dim
                                 : k + ((size_t)t * kv_heads + (h - heads)) * head_dim;
    int half = head_dim / 2;
    for (int i = 0; i < half; ++i) {
        float angle = (float)(pos_offset + t) * powf(theta, -2.0f * i / head_dim);
        float s, c;
        sincosf(angle, &s, &c);
        float x1 = __bfloat162float(v[i]), x2 = __bfloat162float(v[i + half]);
        v[i] = __float2bfloat16(x1 * c - x2 * s);
        v[i + half] = __float2bfloat16(x2 * c + x1 * s);
    }
}
