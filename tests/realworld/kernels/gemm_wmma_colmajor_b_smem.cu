// expect: accepted — WMMA with B stored column-major in shared memory (matrix_b col_major), accumulator stored mem_col_major, 4 warps of 16x16
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

#define BM 32
#define BN 32
#define THREADS 128
#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16

extern "C" __global__ void gemm_bias_act_wmma(const half* A, const half* B, const float* C, const float* bias, float* D,
                                              int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    __shared__ __align__(32) half As[BM][WMMA_K];        // row-major, ld = 16
    __shared__ __align__(32) half Bt[BN][WMMA_K];        // B^T: column-major B, ld = 16
    __shared__ __align__(32) float Cs[4][WMMA_M * WMMA_N];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = warp / 2, wn = warp % 2;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += WMMA_K) {
        for (int e = threadIdx.x; e < BM * WMMA_K; e += THREADS) {
            int r = e / WMMA_K, c = e % WMMA_K;
            As[r][c] = (m0 + r < M && k0 + c < K) ? A[(size_t)(m0 + r) * K + k0 + c] : __float2half(0.0f);
            int n = e / WMMA_K, k = e % WMMA_K;
            Bt[n][k] = (k0 + k < K && n0 + n < N) ? B[(size_t)(k0 + k) * N + n0 + n] : __float2half_rn(0.0f);
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a_frag;
        wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> b_frag;
        wmma::load_matrix_sync(a_frag, &As[wm * 16][0], WMMA_K);
        wmma::load_matrix_sync(b_frag, &Bt[wn * 16][0], WMMA_K);
        wmma::mma_sync(acc, a_frag, b_frag, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(Cs[warp], acc, WMMA_M, wmma::mem_col_major);
    __syncwarp();
    for (int e = lane; e < WMMA_M * WMMA_N; e += 32) {
        int i = e % WMMA_M, j = e / WMMA_M;          // column-major: element (i, j) at j * 16 + i
        int m = m0 + wm * 16 + i, n = n0 + wn * 16 + j;
        if (m >= M || n >= N) continue;
        float v = alpha * Cs[warp][e];
        if (beta != 0.0f) v += beta * C[(size_t)m * N + n];
        if (bias_kind == 1) v += bias[n]; else if (bias_kind == 2) v += bias[m]; else if (bias_kind == 3) v += bias[0];
        if (act == 1) v = fmaxf(v, 0.0f);
        else if (act == 2) v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        D[(size_t)m * N + n] = v;
    }
}
