// Weight-only int8 GEMV (decode, batch 1):
//   y[n] = sum_k W[n, k] * scales[n, k / 128] * x[k]      (fp32 sums, bf16 y)
// A block owns 8 rows of W (the launch plan's one warp per row), but its 8 warps
// split the columns instead: in every step each lane takes one 16-byte column
// chunk (16 weights, all in one group of 128) of all 8 rows, so it has 8
// independent 16-byte loads in flight, and the 16 activations of that chunk are
// loaded and widened to float once for the 8 rows. At the end each thread's 8
// partial sums go through shared memory and warp w adds up row w.
// int8 to float without the conversion unit (16 per clock on an SM): the byte
// b, flipped to b + 128 by an xor, is placed in the mantissa of 2^23 by a byte
// permute, and 2^23 + 128 is subtracted: exact, by the integer and FP32 units.
// Fast path: K % 16 == 0 (every row starts on a 16-byte boundary). Other K:
// one warp per row, one weight at a time.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#ifndef WLOAD
#define WLOAD __ldg
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 4  // 4 blocks of 256 threads per SM: the compiler keeps to 64 registers (no spills)
#endif

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
// A bf16 is the top half of a float: widening is a shift, exact.
__device__ __forceinline__ float lo_bf16(unsigned int u) { return __uint_as_float(u << 16); }
__device__ __forceinline__ float hi_bf16(unsigned int u) { return __uint_as_float(u & 0xffff0000u); }
// Byte k of word q (already xor 0x80808080) as the float b: 2^23 + (b + 128), minus 2^23 + 128.
__device__ __forceinline__ float byte_to_float(unsigned int q, int k) {
    return __uint_as_float(__byte_perm(q, 0x4b000000u, 0x7440u + k)) - 8388736.0f;
}
// The dot product of 16 int8 weights (one int4) with 16 activations already in float.
__device__ __forceinline__ float dot16(int4 w, const float* xf) {
    const unsigned int q[4] = {(unsigned int)w.x ^ 0x80808080u, (unsigned int)w.y ^ 0x80808080u,
                               (unsigned int)w.z ^ 0x80808080u, (unsigned int)w.w ^ 0x80808080u};
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int k = 0; k < 4; ++k) s = fmaf(byte_to_float(q[j], k), xf[4 * j + k], s);
    return s;
}

extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS)
int8_gemv(const signed char* W, const __half* scales, const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int row0 = blockIdx.x * 8;
    const int groups = (K + 127) / 128;
    if (K % 16 == 0 && (size_t)W % 16 == 0 && (size_t)x % 16 == 0) {
        __shared__ float part[8][256];  // [row][thread]
        const int chunks = K / 16;
        const int4* w16 = reinterpret_cast<const int4*>(W);
        const uint4* x8 = reinterpret_cast<const uint4*>(x);
        // this block's rows from row0 on; rows past N (a last partial block) read row N - 1, not written
        const int4* wb = w16 + (size_t)row0 * chunks;
        const __half* sb = scales + (size_t)row0 * groups;
        const int last = min(8, N - row0) - 1;
        float acc[8];
#pragma unroll
        for (int r = 0; r < 8; ++r) acc[r] = 0.0f;
        for (int c = threadIdx.x; c < chunks; c += 256) {
            int4 wq[8];
#pragma unroll
            for (int r = 0; r < 8; ++r) wq[r] = WLOAD(wb + min(r, last) * chunks + c);  // 8 loads in flight
            const uint4 xa = __ldg(x8 + 2 * c), xb = __ldg(x8 + 2 * c + 1);
            const unsigned int xv[8] = {xa.x, xa.y, xa.z, xa.w, xb.x, xb.y, xb.z, xb.w};
            float xf[16];
#pragma unroll
            for (int j = 0; j < 8; ++j) { xf[2 * j] = lo_bf16(xv[j]); xf[2 * j + 1] = hi_bf16(xv[j]); }
#pragma unroll
            for (int r = 0; r < 8; ++r)
                acc[r] = fmaf(__half2float(sb[min(r, last) * groups + c / 8]), dot16(wq[r], xf), acc[r]);
        }
#pragma unroll
        for (int r = 0; r < 8; ++r) part[r][threadIdx.x] = acc[r];
        __syncthreads();
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < 8; ++j) s += part[warp][lane + 32 * j];
        s = warp_sum(s);
        if (lane == 0 && row0 + warp < N) y[row0 + warp] = __float2bfloat16(s);
        return;
    }
    const int row = row0 + warp;
    if (row >= N) return;  // whole warps leave together: the shuffles below stay full
    const signed char* w = W + (size_t)row * K;
    const __half* s = scales + (size_t)row * groups;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32) acc += (float)w[k] * __half2float(s[k / 128]) * __bfloat162float(x[k]);
    acc = warp_sum(acc);
    if (lane == 0) y[row] = __float2bfloat16(acc);
}
