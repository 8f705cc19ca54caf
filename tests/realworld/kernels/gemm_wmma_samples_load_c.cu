// expect: accepted — the CUDA samples' simple tensor-core GEMM: C loaded into an accumulator fragment with mem_row_major, alpha/beta applied over x[] of both fragments; a zero-filled shared tile at the edges
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

#define BM 16
#define BN 16
#define THREADS 32

extern "C" __global__ void gemm_bias_act_wmma(const half* A, const half* B, const float* C, const float* bias, float* D,
                                              int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    __shared__ __align__(32) half as[16 * 16];
    __shared__ __align__(32) half bs[16 * 16];
    __shared__ __align__(32) float cs[16 * 16];
    const int m0 = blockIdx.y * 16, n0 = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc_frag, c_frag;
    wmma::fill_fragment(acc_frag, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = threadIdx.x; e < 256; e += 32) {
            int r = e / 16, c = e % 16;
            as[e] = (m0 + r < M && k0 + c < K) ? A[(size_t)(m0 + r) * K + k0 + c] : __float2half(0.0f);
            bs[e] = (k0 + r < K && n0 + c < N) ? B[(size_t)(k0 + r) * N + n0 + c] : __float2half(0.0f);
        }
        __syncwarp();
        wmma::load_matrix_sync(a_frag, as, 16);
        wmma::load_matrix_sync(b_frag, bs, 16);
        wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
        __syncwarp();
    }
    const bool interior = m0 + 16 <= M && n0 + 16 <= N && N % 4 == 0;
    if (beta != 0.0f && interior) {
        wmma::load_matrix_sync(c_frag, C + (size_t)m0 * N + n0, N, wmma::mem_row_major);
    } else {
        for (int e = threadIdx.x; e < 256; e += 32) {
            int r = e / 16, c = e % 16;
            cs[e] = (beta != 0.0f && m0 + r < M && n0 + c < N) ? C[(size_t)(m0 + r) * N + n0 + c] : 0.0f;
        }
        __syncwarp();
        wmma::load_matrix_sync(c_frag, cs, 16, wmma::mem_row_major);
        __syncwarp();
    }
#pragma unroll
    for (int i = 0; i < c_frag.num_elements; ++i) c_frag.x[i] = alpha * acc_frag.x[i] + beta * c_frag.x[i];
    wmma::store_matrix_sync(cs, c_frag, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = threadIdx.x; e < 256; e += 32) {
        int m = m0 + e / 16, n = n0 + e % 16;
        if (m >= M || n >= N) continue;
        float v = cs[e];
        v += bias_kind == 1 ? bias[n] : bias_kind == 2 ? bias[m] : bias_kind == 3 ? bias[0] : 0.0f;
        if (act == 1) v = fmaxf(v, 0.0f);
        else if (act == 2) v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        D[(size_t)m * N + n] = v;
    }
}
