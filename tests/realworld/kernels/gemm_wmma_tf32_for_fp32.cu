// expect: wrong_answer — the FP32 exercise on TF32 tensor cores (wmma::precision::tf32, m16n16k8, __float_to_tf32): 10 mantissa bits miss the 1e-4 tolerance
#include <mma.h>
using namespace nvcuda;
#define BM 16
#define BN 16
#define THREADS 32

extern "C" __global__ void gemm_bias_act(const float* A, const float* B, const float* C, const float* bias, float* D,
                                         int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    __shared__ __align__(32) float as[16 * 8];
    __shared__ __align__(32) float bs[8 * 16];
    __shared__ __align__(32) float out[16 * 16];
    const int m0 = blockIdx.y * 16, n0 = blockIdx.x * 16;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 8) {
        for (int e = threadIdx.x; e < 128; e += 32) {
            int r = e / 8, c = e % 8;
            as[e] = (m0 + r < M && k0 + c < K) ? A[(size_t)(m0 + r) * K + k0 + c] : 0.0f;
            int br = e / 16, bc = e % 16;
            bs[e] = (k0 + br < K && n0 + bc < N) ? B[(size_t)(k0 + br) * N + n0 + bc] : 0.0f;
        }
        __syncwarp();
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> af;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> bf;
        wmma::load_matrix_sync(af, as, 8);
        wmma::load_matrix_sync(bf, bs, 16);
#pragma unroll
        for (int t = 0; t < af.num_elements; ++t) af.x[t] = wmma::__float_to_tf32(af.x[t]);
#pragma unroll
        for (int t = 0; t < bf.num_elements; ++t) bf.x[t] = wmma::__float_to_tf32(bf.x[t]);
        wmma::mma_sync(acc, af, bf, acc);
        __syncwarp();
    }
    wmma::store_matrix_sync(out, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = threadIdx.x; e < 256; e += 32) {
        int m = m0 + e / 16, n = n0 + e % 16;
        if (m >= M || n >= N) continue;
        float v = alpha * out[e] + (beta != 0.0f ? beta * C[(size_t)m * N + n] : 0.0f);
        v += bias_kind == 1 ? bias[n] : bias_kind == 2 ? bias[m] : bias_kind == 3 ? bias[0] : 0.0f;
        if (act == 1) v = fmaxf(v, 0.0f);
        else if (act == 2) v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        D[(size_t)m * N + n] = v;
    }
}
