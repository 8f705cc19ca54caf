// RoPE in place on q and k (bf16, half-split pairs: i with i + head_dim / 2),
// one block per token. Every head of a token turns by the same angles, so a
// thread computes cos/sin for its pair indices once, in fp32, and applies
// them to every head it visits: heads + kv_heads rotations per sincosf.
// Fast path (head_dim / 2 even, at most 2 * blockDim.x pairs): each thread
// owns two neighbouring pairs (2j, 2j + 1) and moves them with 4-byte
// __nv_bfloat162 accesses; other shapes take one pair at a time.
#include <cuda_bf16.h>

__device__ __forceinline__ float inv_freq(int i, int head_dim, float log2_theta) {
    return exp2f(-(float)(2 * i) / (float)head_dim * log2_theta);
}
__device__ __forceinline__ __nv_bfloat16* head_ptr(__nv_bfloat16* q, __nv_bfloat16* k, int t, int h,
                                                   int heads, int kv_heads, int head_dim) {
    return h < heads ? q + ((size_t)t * heads + h) * head_dim
                     : k + ((size_t)t * kv_heads + (h - heads)) * head_dim;
}
// Pairs 2j and 2j + 1 of one head: lo[0] holds elements (2j, 2j + 1), lo[half / 2]
// their partners (2j + half, 2j + 1 + half).
__device__ __forceinline__ __nv_bfloat162* pair_ptr(__nv_bfloat16* q, __nv_bfloat16* k, int t, int h,
                                                    int heads, int kv_heads, int head_dim, int j) {
    return reinterpret_cast<__nv_bfloat162*>(head_ptr(q, k, t, h, heads, kv_heads, head_dim)) + j;
}
__device__ __forceinline__ void rotate2(__nv_bfloat162* lo, int per_head, __nv_bfloat162 x1, __nv_bfloat162 x2,
                                        float c0, float s0, float c1, float s1) {
    float2 a = __bfloat1622float2(x1), b = __bfloat1622float2(x2);
    lo[0] = __floats2bfloat162_rn(a.x * c0 - b.x * s0, a.y * c1 - b.y * s1);
    lo[per_head] = __floats2bfloat162_rn(b.x * c0 + a.x * s0, b.y * c1 + a.y * s1);
}
extern "C" __global__ void rope(__nv_bfloat16* q, __nv_bfloat16* k, int tokens, int heads,
                                int kv_heads, int head_dim, int pos_offset, float theta) {
    const int t = blockIdx.x, tid = threadIdx.x, nt = blockDim.x;
    const int half = head_dim / 2, nh = heads + kv_heads;
    const float pos = (float)(pos_offset + t), log2_theta = log2f(theta);
    if (half % 2 == 0 && half / 2 <= nt) {
        const int per_head = half / 2;          // threads per head
        const int lanes = nt / per_head;        // heads visited side by side
        if (tid >= lanes * per_head) return;
        const int j = tid % per_head;
        float s0, c0, s1, c1;
        sincosf(pos * inv_freq(2 * j, head_dim, log2_theta), &s0, &c0);
        sincosf(pos * inv_freq(2 * j + 1, head_dim, log2_theta), &s1, &c1);
        // two heads per step: their four loads are in flight together
        int h = tid / per_head;
        for (; h + lanes < nh; h += 2 * lanes) {
            __nv_bfloat162* lo0 = pair_ptr(q, k, t, h, heads, kv_heads, head_dim, j);
            __nv_bfloat162* lo1 = pair_ptr(q, k, t, h + lanes, heads, kv_heads, head_dim, j);
            __nv_bfloat162 a0 = lo0[0], b0 = lo0[per_head], a1 = lo1[0], b1 = lo1[per_head];
            rotate2(lo0, per_head, a0, b0, c0, s0, c1, s1);
            rotate2(lo1, per_head, a1, b1, c0, s0, c1, s1);
        }
        if (h < nh) {
            __nv_bfloat162* lo = pair_ptr(q, k, t, h, heads, kv_heads, head_dim, j);
            rotate2(lo, per_head, lo[0], lo[per_head], c0, s0, c1, s1);
        }
        return;
    }
    for (int p = tid; p < half; p += nt) {
        float s, c;
        sincosf(pos * inv_freq(p, head_dim, log2_theta), &s, &c);
        for (int h = 0; h < nh; ++h) {
            __nv_bfloat16* v = head_ptr(q, k, t, h, heads, kv_heads, head_dim);
            float x1 = __bfloat162float(v[p]), x2 = __bfloat162float(v[p + half]);
            v[p] = __float2bfloat16(x1 * c - x2 * s);
            v[p + half] = __float2bfloat16(x2 * c + x1 * s);
        }
    }
}
