// expect: wrong_answer — a half-precision accumulator fragment: fine for K = 16, but summing over K = 40 and more in FP16 loses more than the 1e-3 tolerance
#include <mma.h>
using namespace nvcuda;
#define BM 16
#define BN 16
#define THREADS 32

extern "C" __global__ void gemm_bias_act_wmma(const half* A, const half* B, const float* C, const float* bias, float* D,
                                              int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    __shared__ __align__(32) half as[256];
    __shared__ __align__(32) half bs[256];
    __shared__ __align__(32) half out[256];
    const int m0 = blockIdx.y * 16, n0 = blockIdx.x * 16;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> acc;
    wmma::fill_fragment(acc, __float2half(0.0f));
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = threadIdx.x; e < 256; e += 32) {
            int r = e / 16, c = e % 16;
            as[e] = (m0 + r < M && k0 + c < K) ? A[(size_t)(m0 + r) * K + k0 + c] : __float2half(0.0f);
            bs[e] = (k0 + r < K && n0 + c < N) ? B[(size_t)(k0 + r) * N + n0 + c] : __float2half(0.0f);
        }
        __syncwarp();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> af;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> bf;
        wmma::load_matrix_sync(af, as, 16);
        wmma::load_matrix_sync(bf, bs, 16);
        wmma::mma_sync(acc, af, bf, acc);
        __syncwarp();
    }
    wmma::store_matrix_sync(out, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = threadIdx.x; e < 256; e += 32) {
        int m = m0 + e / 16, n = n0 + e % 16;
        if (m >= M || n >= N) continue;
        float v = alpha * __half2float(out[e]) + (beta != 0.0f ? beta * C[(size_t)m * N + n] : 0.0f);
        v += bias_kind == 1 ? bias[n] : bias_kind == 2 ? bias[m] : bias_kind == 3 ? bias[0] : 0.0f;
        if (act == 1) v = fmaxf(v, 0.0f);
        else if (act == 2) v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        D[(size_t)m * N + n] = v;
    }
}
