// Four warps share a 32x32 tile of D: the 32x16 slice of A and 16x32 slice
// of B are loaded once into shared memory by all 128 threads and each warp
// reads the two it needs, so each element loaded feeds two WMMAs.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
#define BM 32
#define BN 32
#define THREADS 128

__device__ float gelu_tanh(float x) {
    float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + tanhf(u));
}

extern "C" __global__ void gemm_bias_act_wmma(const half* A, const half* B, const float* C, const float* bias,
                                              float* D, int M, int N, int K, float alpha, float beta,
                                              int bias_kind, int act) {
    __shared__ __align__(32) half As[32][16];
    __shared__ __align__(32) half Bs[16][32];
    __shared__ __align__(32) float Cs[4][16][16];
    const int m0 = blockIdx.y * 32, n0 = blockIdx.x * 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = warp / 2, wn = warp % 2;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = threadIdx.x; i < 512; i += THREADS) {
            int ar = i / 16, ac = i % 16;
            As[ar][ac] = (m0 + ar < M && k0 + ac < K) ? A[(size_t)(m0 + ar) * K + k0 + ac] : __float2half(0.0f);
            int br = i / 32, bc = i % 32;
            Bs[br][bc] = (k0 + br < K && n0 + bc < N) ? B[(size_t)(k0 + br) * N + n0 + bc] : __float2half(0.0f);
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
        wmma::load_matrix_sync(a, &As[wm * 16][0], 16);
        wmma::load_matrix_sync(b, &Bs[0][wn * 16], 32);
        wmma::mma_sync(acc, a, b, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(&Cs[warp][0][0], acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = lane; i < 256; i += 32) {
        int m = m0 + wm * 16 + i / 16, n = n0 + wn * 16 + i % 16;
        if (m >= M || n >= N) continue;
        float b = bias_kind == 1 ? bias[n] : bias_kind == 2 ? bias[m] : bias_kind == 3 ? bias[0] : 0.0f;
        float v = alpha * Cs[warp][i / 16][i % 16] + b;
        if (beta != 0.0f) v += beta * C[(size_t)m * N + n];
        D[(size_t)m * N + n] = act == 1 ? fmaxf(v, 0.0f) : act == 2 ? gelu_tanh(v) : v;
    }
}
