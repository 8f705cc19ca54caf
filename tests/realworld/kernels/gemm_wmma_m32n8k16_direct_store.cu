// expect: accepted — WMMA m32n8k16 fragments (A 32x16, B 16x8), the accumulator stored straight to D for whole interior tiles (N % 4 == 0), through shared memory at the edges, then the epilogue in place
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

#define BM 32
#define BN 16
#define THREADS 64

__device__ __forceinline__ float finish(float acc, float c, float b, float alpha, float beta, int act) {
    float v = alpha * acc + beta * c + b;
    if (act == 1) return fmaxf(v, 0.0f);
    if (act == 2) return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    return v;
}

extern "C" __global__ void gemm_bias_act_wmma(const half* A, const half* B, const float* C, const float* bias, float* D,
                                              int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    __shared__ __align__(32) half as[32 * 16];
    __shared__ __align__(32) half bs[16 * 16];
    __shared__ __align__(32) float stage[2][32 * 8];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN + warp * 8;   // each warp: 32 rows x 8 columns
    wmma::fragment<wmma::accumulator, 32, 8, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = threadIdx.x; e < 32 * 16; e += THREADS) {
            int r = e / 16, c = e % 16;
            as[e] = (m0 + r < M && k0 + c < K) ? A[(size_t)(m0 + r) * K + k0 + c] : __float2half(0.0f);
        }
        for (int e = threadIdx.x; e < 16 * 16; e += THREADS) {
            int r = e / 16, c = e % 16, n = blockIdx.x * BN + c;
            bs[e] = (k0 + r < K && n < N) ? B[(size_t)(k0 + r) * N + n] : __float2half(0.0f);
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> af;
        wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> bf;
        wmma::load_matrix_sync(af, as, 16);
        wmma::load_matrix_sync(bf, bs + warp * 8, 16);
        wmma::mma_sync(acc, af, bf, acc);
        __syncthreads();
    }
    const bool interior = m0 + 32 <= M && n0 + 8 <= N && N % 4 == 0;
    float* tile = interior ? D + (size_t)m0 * N + n0 : stage[warp];
    const int ld = interior ? N : 8;
    wmma::store_matrix_sync(tile, acc, ld, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 32 * 8; e += 32) {
        int r = e / 8, c = e % 8, m = m0 + r, n = n0 + c;
        if (m >= M || n >= N) continue;
        float b = bias_kind == 1 ? bias[n] : bias_kind == 2 ? bias[m] : bias_kind == 3 ? bias[0] : 0.0f;
        float cv = beta != 0.0f ? C[(size_t)m * N + n] : 0.0f;
        D[(size_t)m * N + n] = finish(tile[r * ld + c], cv, b, alpha, beta, act);
    }
}
