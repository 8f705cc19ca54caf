// Fused residual add + RMSNorm, one block per row (bf16 in and out, fp32 inside):
//   h = x + residual;  residual = h;  out = h * rsqrt(mean(h^2) + eps) * weight
// Fast path (cols % 8 == 0, 16-byte aligned rows, cols <= 8 * VPT * blockDim.x):
// each thread loads its 16-byte vectors of x and residual once, keeps h in
// registers for the sum of squares and the normalisation, and writes residual
// and out with 16-byte stores. Other rows: one element at a time, out computed
// from the residual this same thread has just written.
#include <cuda_bf16.h>

#define VPT 4  // 16-byte vectors (8 bf16 each) per thread kept in registers

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
// Every thread gets the block's sum.
__device__ float block_sum(float v, float* scratch) {
    v = warp_sum(v);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? scratch[lane] : 0.0f;
    return warp_sum(v);
}
// A bf16 is the top half of a float: widening is a shift, exact.
__device__ __forceinline__ void unpack8(uint4 u, float* f) {
    unsigned int w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        f[2 * j] = __uint_as_float(w[j] << 16);
        f[2 * j + 1] = __uint_as_float(w[j] & 0xffff0000u);
    }
}
// Round to the nearest bf16, ties to even (what __float2bfloat16 does for finite values).
__device__ __forceinline__ unsigned int bf16_bits(float f) {
    unsigned int u = __float_as_uint(f);
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}
__device__ __forceinline__ unsigned int pack2(float lo, float hi) {
    return bf16_bits(lo) | (bf16_bits(hi) << 16);
}
__device__ __forceinline__ uint4 pack8(const float* f) {
    return make_uint4(pack2(f[0], f[1]), pack2(f[2], f[3]), pack2(f[4], f[5]), pack2(f[6], f[7]));
}
extern "C" __global__ void fused_add_rmsnorm(const __nv_bfloat16* x, __nv_bfloat16* residual,
                                             const __nv_bfloat16* weight, __nv_bfloat16* out,
                                             int rows, int cols, float eps) {
    __shared__ float scratch[32];
    const size_t base = (size_t)blockIdx.x * cols;
    const int nt = blockDim.x, tid = threadIdx.x;
    bool vec = cols % 8 == 0 && (cols / 8) <= VPT * nt && ((size_t)(x + base) % 16 == 0) &&
               ((size_t)(residual + base) % 16 == 0) && ((size_t)(out + base) % 16 == 0) &&
               ((size_t)weight % 16 == 0);
    if (vec) {
        const uint4* x8 = reinterpret_cast<const uint4*>(x + base);
        uint4* r8 = reinterpret_cast<uint4*>(residual + base);
        int n8 = cols / 8;
        float h[VPT][8];
        float q = 0.0f;
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            int i = tid + j * nt;
            if (i < n8) {
                float a[8];
                unpack8(x8[i], a);
                unpack8(r8[i], h[j]);
#pragma unroll
                for (int e = 0; e < 8; ++e) { h[j][e] += a[e]; q += h[j][e] * h[j][e]; }
                r8[i] = pack8(h[j]);
            }
        }
        float rstd = rsqrtf(block_sum(q, scratch) / cols + eps);
        const uint4* w8 = reinterpret_cast<const uint4*>(weight);
        uint4* o8 = reinterpret_cast<uint4*>(out + base);
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            int i = tid + j * nt;
            if (i < n8) {
                float w[8];
                unpack8(__ldg(w8 + i), w);
#pragma unroll
                for (int e = 0; e < 8; ++e) h[j][e] = h[j][e] * rstd * w[e];
                o8[i] = pack8(h[j]);
            }
        }
        return;
    }
    float q = 0.0f;
    for (int c = tid; c < cols; c += nt) {
        float h = __bfloat162float(x[base + c]) + __bfloat162float(residual[base + c]);
        residual[base + c] = __float2bfloat16(h);
        q += h * h;
    }
    float rstd = rsqrtf(block_sum(q, scratch) / cols + eps);
    for (int c = tid; c < cols; c += nt) {
        float h = __bfloat162float(residual[base + c]);
        out[base + c] = __float2bfloat16(h * rstd * __bfloat162float(weight[c]));
    }
}
