// BUG: only q is rotated: k keeps its old values, and q·k no longer depends on the
// relative position alone.
#include <cuda_bf16.h>

extern "C" __global__ void rope(__nv_bfloat16* q, __nv_bfloat16* k, int tokens, int heads,
                                int kv_heads, int head_dim, int pos_offset, float theta) {
    const int t = blockIdx.x, half = head_dim / 2;
    const int total = heads * half;
    for (int id = threadIdx.x; id < total; id += blockDim.x) {
        int h = id / half, i = id % half;
        __nv_bfloat16* v = h < heads ? q + ((size_t)t * heads + h) * head_dim
                                     : k + ((size_t)t * kv_heads + (h - heads)) * head_dim;
        float angle = (float)(pos_offset + t) * powf(theta, -2.0f * (float)i / (float)head_dim);
        float s, c;
        sincosf(angle, &s, &c);
        float x1 = __bfloat162float(v[i]), x2 = __bfloat162float(v[i + half]);
        v[i] = __float2bfloat16(x1 * c - x2 * s);
        v[i + half] = __float2bfloat16(x2 * c + x1 * s);
    }
}
