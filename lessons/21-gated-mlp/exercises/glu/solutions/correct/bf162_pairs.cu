// Pairs of columns as __nv_bfloat162 (4-byte loads) when hidden is even, with
// a sigmoid written for both signs: for g < 0, e^g / (1 + e^g), whose e^g
// cannot overflow; for g >= 0, 1 / (1 + e^-g). Odd hidden: one at a time.
#include <cuda_bf16.h>

__device__ __forceinline__ float act_fn(float g, int act) {
    if (act == 0) {
        float e = expf(-fabsf(g));  // in (0, 1]: never overflows
        float sig = g >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
        return g * sig;
    }
    return 0.5f * g * (1.0f + erff(g * 0.70710678f));
}

extern "C" __global__ void glu(const __nv_bfloat16* gate_up, __nv_bfloat16* out, int rows, int hidden, int act) {
    const int row = blockIdx.y;
    const int start = blockIdx.x * 2048, end = min(hidden, start + 2048);
    const __nv_bfloat16* gate = gate_up + (size_t)row * 2 * hidden;
    const __nv_bfloat16* up = gate + hidden;
    __nv_bfloat16* o = out + (size_t)row * hidden;
    if (hidden % 2 == 0) {
        for (int c = start + 2 * threadIdx.x; c < end; c += 2 * blockDim.x) {
            float2 g = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(gate + c));
            float2 u = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(up + c));
            *reinterpret_cast<__nv_bfloat162*>(o + c) =
                __floats2bfloat162_rn(act_fn(g.x, act) * u.x, act_fn(g.y, act) * u.y);
        }
        return;
    }
    for (int c = start + threadIdx.x; c < end; c += blockDim.x)
        o[c] = __float2bfloat16(act_fn(__bfloat162float(gate[c]), act) * __bfloat162float(up[c]));
}
