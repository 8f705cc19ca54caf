// expect: accepted — WMMA fragments loaded straight from global memory for whole interior tiles (K, N multiples of 8), a zero-filled shared tile at the edges, accumulator fragments reused via x[] scaling
#include <mma.h>
using namespace nvcuda;

#define BM 16
#define BN 16
#define THREADS 32

extern "C" __global__ void gemm_bias_act_wmma(const half* A, const half* B, const float* C, const float* bias, float* D,
                                              int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    __shared__ __align__(32) half a_tile[256];
    __shared__ __align__(32) half b_tile[256];
    __shared__ __align__(32) float out_tile[256];
    const int m0 = blockIdx.y * 16, n0 = blockIdx.x * 16;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> af;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> bf;
    const bool ld_ok = (K % 8 == 0) && (N % 8 == 0);
    for (int k0 = 0; k0 < K; k0 += 16) {
        bool interior = ld_ok && m0 + 16 <= M && n0 + 16 <= N && k0 + 16 <= K;
        if (interior) {
            wmma::load_matrix_sync(af, A + (size_t)m0 * K + k0, K);
            wmma::load_matrix_sync(bf, B + (size_t)k0 * N + n0, N);
        } else {
            for (int e = threadIdx.x; e < 256; e += 32) {
                int r = e / 16, c = e % 16;
                a_tile[e] = (m0 + r < M && k0 + c < K) ? A[(size_t)(m0 + r) * K + k0 + c] : __float2half(0.0f);
                b_tile[e] = (k0 + r < K && n0 + c < N) ? B[(size_t)(k0 + r) * N + n0 + c] : __float2half(0.0f);
            }
            __syncwarp();
            wmma::load_matrix_sync(af, a_tile, 16);
            wmma::load_matrix_sync(bf, b_tile, 16);
            __syncwarp();
        }
        wmma::mma_sync(acc, af, bf, acc);
    }
#pragma unroll
    for (int t = 0; t < acc.num_elements; ++t) acc.x[t] *= alpha;   // uniform over the fragment: any element order
    wmma::store_matrix_sync(out_tile, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = threadIdx.x; e < 256; e += 32) {
        int m = m0 + e / 16, n = n0 + e % 16;
        if (m >= M || n >= N) continue;
        float v = out_tile[e];
        if (beta != 0.0f) v += beta * C[(size_t)m * N + n];
        if (bias_kind) v += bias[bias_kind == 1 ? n : bias_kind == 2 ? m : 0];
        if (act == 1) v = fmaxf(v, 0.0f);
        if (act == 2) v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        D[(size_t)m * N + n] = v;
    }
}
