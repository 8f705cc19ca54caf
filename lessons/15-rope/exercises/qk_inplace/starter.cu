// RoPE in place on q [tokens][heads][head_dim] and k [tokens][kv_heads][head_dim]
// (bf16), half-split convention: for i < head_dim / 2, element i pairs with
// element i + head_dim / 2 and the pair turns by the angle
//   (pos_offset + token) * theta^(-2i / head_dim):
//   x1' = x1 * cos - x2 * sin,   x2' = x2 * cos + x1 * sin
// Launch plan (fixed by the exercise): grid = tokens (one block per token),
// block = 128 threads.
//
// This starter is a placeholder: it rotates every pair by the angle of pair 0.
#include <cuda_bf16.h>

// FILL-IN: helper functions, if you want them
extern "C" __global__ void rope(__nv_bfloat16* q, __nv_bfloat16* k, int tokens, int heads,
                                int kv_heads, int head_dim, int pos_offset, float theta) {
    // BEGIN FILL-IN
    const int t = blockIdx.x, half = head_dim / 2;
    // TODO: the angle of pair i is (pos_offset + t) * theta^(-2i / head_dim), in float
    // TODO: compute cos/sin once per pair index and reuse them for every head of q and k
    float s, c;
    sincosf((float)(pos_offset + t), &s, &c);
    for (int p = threadIdx.x; p < half; p += blockDim.x) {
        for (int h = 0; h < heads; ++h) {
            __nv_bfloat16* v = q + ((size_t)t * heads + h) * head_dim;
            float x1 = __bfloat162float(v[p]), x2 = __bfloat162float(v[p + half]);
            v[p] = __float2bfloat16(x1 * c - x2 * s);
            v[p + half] = __float2bfloat16(x2 * c + x1 * s);
        }
    }
    // END FILL-IN
}
