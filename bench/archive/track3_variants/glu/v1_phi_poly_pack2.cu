// Fused gated-MLP activation (bf16 in and out, fp32 inside):
//   out[r, c] = act(gate[r, c]) * up[r, c],  row r of gate_up = [gate | up]
// act = 0: SiLU, g / (1 + exp(-g)) (exp(-g) may overflow to inf: g / inf = -0,
// the right limit); act = 1: exact GELU, g * Phi(g), Phi the normal CDF.
// Phi(g) = erfc(-g / sqrt 2) / 2 is computed without erfcf: with t = |g| / sqrt 2
// and u = 1 / (1 + t / 2), erfc(t) = u * exp(-t^2 + R(u)), R a degree-9
// polynomial fitted for this kernel (bench/track3_variants/fit_erfc.py); then
// Phi(g) = h for g < 0 and 1 - h for g >= 0, h = erfc(t) / 2. No cancellation in
// the far negative tail; relative error below 2e-5 for every g and 1.3e-6 for
// |g| < 3 (fit_erfc.py, float32 arithmetic), against bf16's step of 4e-3.
// g * Phi(g) is 31 machine instructions (sm_90a), where erfcf's takes 53.
// Block (x, y) takes row y, columns x*2048 .. x*2048+2047. Fast path (hidden % 8
// == 0: gate, up and out rows all start on 16-byte boundaries): each thread
// reads one uint4 of gate and one of up (8 bf16 each) and writes one uint4.
#include <cuda_bf16.h>

#define COLS_PER_BLOCK 2048

// Phi(g), the standard normal CDF. The coefficients are R(u) in base-2 units
// (times log2 e), with the 1/2 of h folded into the constant term (-1).
__device__ __forceinline__ float normal_cdf(float g) {
    const float t = fabsf(g) * 0.70710678118654752f;
    const float u = __fdividef(1.0f, 1.0f + 0.5f * t);
    float r = 2.434752789e-01f;
    r = fmaf(r, u, -1.173402587e+00f);
    r = fmaf(r, u, 2.125500639e+00f);
    r = fmaf(r, u, -1.617449359e+00f);
    r = fmaf(r, u, 3.915041596e-01f);
    r = fmaf(r, u, -2.654164611e-01f);
    r = fmaf(r, u, 1.390605392e-01f);
    r = fmaf(r, u, 5.397481504e-01f);
    r = fmaf(r, u, 1.442727726e+00f);
    r = fmaf(r, u, -2.825748204e+00f);
    const float h = u * exp2f(fmaf(-t * 1.44269504088896341f, t, r));  // erfc(t) / 2
    return g < 0.0f ? h : 1.0f - h;
}
__device__ __forceinline__ float act_fn(float g, int act) {
    return act == 0 ? g / (1.0f + __expf(-g)) : g * normal_cdf(g);
}
// One packed pair of bf16 (low half first) through the activation; the pair is
// rounded to nearest (ties to even) by one conversion instruction.
__device__ __forceinline__ unsigned int glu2(unsigned int g, unsigned int u, int act) {
    float lo = act_fn(__uint_as_float(g << 16), act) * __uint_as_float(u << 16);
    float hi = act_fn(__uint_as_float(g & 0xffff0000u), act) * __uint_as_float(u & 0xffff0000u);
    __nv_bfloat162 r = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<unsigned int*>(&r);
}

extern "C" __global__ void glu(const __nv_bfloat16* gate_up, __nv_bfloat16* out, int rows, int hidden, int act) {
    const int row = blockIdx.y;
    const int start = blockIdx.x * COLS_PER_BLOCK;
    const __nv_bfloat16* gate = gate_up + (size_t)row * 2 * hidden;
    const __nv_bfloat16* up = gate + hidden;
    __nv_bfloat16* o = out + (size_t)row * hidden;
    if (hidden % 8 == 0 && (size_t)gate_up % 16 == 0 && (size_t)out % 16 == 0) {
        int c = start + 8 * threadIdx.x;  // 256 threads x 8 columns = one block's 2048
        if (c < hidden) {
            uint4 g = __ldg(reinterpret_cast<const uint4*>(gate + c));
            uint4 u = __ldg(reinterpret_cast<const uint4*>(up + c));
            uint4 r = make_uint4(glu2(g.x, u.x, act), glu2(g.y, u.y, act), glu2(g.z, u.z, act),
                                 glu2(g.w, u.w, act));
            *reinterpret_cast<uint4*>(o + c) = r;
        }
        return;
    }
    for (int c = start + threadIdx.x; c < min(hidden, start + COLS_PER_BLOCK); c += blockDim.x)
        o[c] = __float2bfloat16(act_fn(__bfloat162float(gate[c]), act) * __bfloat162float(up[c]));
}
