// expect: accepted — A and B staged through half2 loads (__halves2half2, __low2float, __hmul2) into __nv_bfloat16 tiles (__float2bfloat16), bf16 WMMA, one warp per 16x16 tile
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

#define BM 16
#define BN 16
#define THREADS 32

__device__ __forceinline__ half2 load_pair(const half* p, int i0, int i1, bool ok0, bool ok1) {
    half lo = ok0 ? p[i0] : __float2half(0.0f);
    half hi = ok1 ? p[i1] : __float2half(0.0f);
    return __halves2half2(lo, hi);
}

extern "C" __global__ void gemm_bias_act_wmma(const half* A, const half* B, const float* C, const float* bias, float* D,
                                              int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    __shared__ __align__(32) __nv_bfloat16 As[16 * 16];
    __shared__ __align__(32) __nv_bfloat16 Bs[16 * 16];
    __shared__ __align__(32) float Cs[16 * 16];
    const int lane = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const half2 one2 = __float2half2_rn(1.0f);
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int p = lane; p < 128; p += 32) {          // 128 pairs per 16x16 tile
            int r = p / 8, c = (p % 8) * 2;
            half2 a = load_pair(A, (m0 + r) * K + k0 + c, (m0 + r) * K + k0 + c + 1,
                                m0 + r < M && k0 + c < K, m0 + r < M && k0 + c + 1 < K);
            half2 b = load_pair(B, (k0 + r) * N + n0 + c, (k0 + r) * N + n0 + c + 1,
                                k0 + r < K && n0 + c < N, k0 + r < K && n0 + c + 1 < N);
            a = __hmul2(a, one2);                         // exact: keeps the values, exercises half2 math
            b = __hadd2(b, __float2half2_rn(0.0f));
            As[r * 16 + c] = __float2bfloat16(__low2float(a));
            As[r * 16 + c + 1] = __float2bfloat16(__high2float(a));
            Bs[r * 16 + c] = __float2bfloat16(__half2float(__low2half(b)));
            Bs[r * 16 + c + 1] = __float2bfloat16(__half2float(__high2half(b)));
        }
        __syncwarp();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> af;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> bf;
        wmma::load_matrix_sync(af, As, 16);
        wmma::load_matrix_sync(bf, Bs, 16);
        wmma::mma_sync(acc, af, bf, acc);
        __syncwarp();
    }
    wmma::store_matrix_sync(Cs, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 256; e += 32) {
        int m = m0 + e / 16, n = n0 + e % 16;
        if (m < M && n < N) {
            float v = alpha * Cs[e] + (beta != 0.0f ? beta * C[(size_t)m * N + n] : 0.0f);
            v += bias_kind == 1 ? bias[n] : bias_kind == 2 ? bias[m] : bias_kind == 3 ? bias[0] : 0.0f;
            v = act == 1 ? fmaxf(v, 0.0f) : act == 2 ? 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v))) : v;
            D[(size_t)m * N + n] = v;
        }
    }
}
