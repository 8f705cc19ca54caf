// A per-token table: the block first fills shared memory with cos and sin
// of every pair index (head_dim / 2 <= 256 entries), then every thread
// rotates pairs of any head by looking the angle up.
#include <cuda_bf16.h>

extern "C" __global__ void rope(__nv_bfloat16* q, __nv_bfloat16* k, int tokens, int heads,
                                int kv_heads, int head_dim, int pos_offset, float theta) {
    __shared__ float cos_t[256], sin_t[256];
    const int t = blockIdx.x, half = head_dim / 2;
    for (int i = threadIdx.x; i < half; i += blockDim.x) {
        float angle = (float)(pos_offset + t) * powf(theta, -2.0f * (float)i / (float)head_dim);
        sincosf(angle, &sin_t[i], &cos_t[i]);
    }
    __syncthreads();
    const int total = (heads + kv_heads) * half;
    for (int id = threadIdx.x; id < total; id += blockDim.x) {
        int h = id / half, i = id % half;
        __nv_bfloat16* v = h < heads ? q + ((size_t)t * heads + h) * head_dim
                                     : k + ((size_t)t * kv_heads + (h - heads)) * head_dim;
        float x1 = __bfloat162float(v[i]), x2 = __bfloat162float(v[i + half]);
        v[i] = __float2bfloat16(x1 * cos_t[i] - x2 * sin_t[i]);
        v[i + half] = __float2bfloat16(x2 * cos_t[i] + x1 * sin_t[i]);
    }
}
