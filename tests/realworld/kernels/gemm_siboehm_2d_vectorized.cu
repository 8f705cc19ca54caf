// expect: accepted — siboehm's kernels 5-6: 2D blocktiling (128x128, BK=8, 8x8 per thread), float4 global loads, A transposed into shared memory, float4 shared loads
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS 256

struct Epilogue {
    float alpha, beta;
    int bias_kind, act;
    __device__ float operator()(float acc, const float* C, const float* bias, int m, int n, int N) const {
        float v = alpha * acc;
        if (beta != 0.0f) v += beta * C[(size_t)m * N + n];
        v += bias_kind == 1 ? bias[n] : bias_kind == 2 ? bias[m] : bias_kind == 3 ? bias[0] : 0.0f;
        if (act == 1) return fmaxf(v, 0.0f);
        if (act == 2) return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
        return v;
    }
};

extern "C" __global__ void __launch_bounds__(THREADS, 1) gemm_bias_act(
    const float* __restrict__ A, const float* __restrict__ B, const float* __restrict__ C,
    const float* __restrict__ bias, float* __restrict__ D, int M, int N, int K,
    float alpha, float beta, int bias_kind, int act) {
    __shared__ __align__(16) float As[BK * BM];   // transposed: As[k][m]
    __shared__ __align__(16) float Bs[BK * BN];
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int threadCol = threadIdx.x % (BN / TN), threadRow = threadIdx.x / (BN / TN);
    const int innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
    const int innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);
    const bool vecA = K % 4 == 0, vecB = N % 4 == 0;
    float threadResults[TM * TN] = {0.0f};
    float regM[TM], regN[TN];

    for (int k0 = 0; k0 < K; k0 += BK) {
        {   // A: 128 rows x 8 columns, one float4 per thread
            int gm = m0 + innerRowA, gk = k0 + innerColA * 4;
            float4 t = make_float4(0.f, 0.f, 0.f, 0.f);
            if (vecA && gm < M && gk + 3 < K) {
                t = reinterpret_cast<const float4*>(&A[(size_t)gm * K + gk])[0];
            } else if (gm < M) {
                if (gk + 0 < K) t.x = A[(size_t)gm * K + gk + 0];
                if (gk + 1 < K) t.y = A[(size_t)gm * K + gk + 1];
                if (gk + 2 < K) t.z = A[(size_t)gm * K + gk + 2];
                if (gk + 3 < K) t.w = A[(size_t)gm * K + gk + 3];
            }
            As[(innerColA * 4 + 0) * BM + innerRowA] = t.x;
            As[(innerColA * 4 + 1) * BM + innerRowA] = t.y;
            As[(innerColA * 4 + 2) * BM + innerRowA] = t.z;
            As[(innerColA * 4 + 3) * BM + innerRowA] = t.w;
        }
        {   // B: 8 rows x 128 columns, one float4 per thread
            int gk = k0 + innerRowB, gn = n0 + innerColB * 4;
            float4 t = make_float4(0.f, 0.f, 0.f, 0.f);
            if (vecB && gk < K && gn + 3 < N) {
                t = reinterpret_cast<const float4*>(&B[(size_t)gk * N + gn])[0];
            } else if (gk < K) {
                float* tp = reinterpret_cast<float*>(&t);
                for (int j = 0; j < 4; ++j) if (gn + j < N) tp[j] = B[(size_t)gk * N + gn + j];
            }
            reinterpret_cast<float4*>(&Bs[innerRowB * BN + innerColB * 4])[0] = t;
        }
        __syncthreads();
#pragma unroll
        for (int dotIdx = 0; dotIdx < BK; ++dotIdx) {
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                *reinterpret_cast<float4*>(&regM[i]) = *reinterpret_cast<const float4*>(&As[dotIdx * BM + threadRow * TM + i]);
#pragma unroll
            for (int i = 0; i < TN; i += 4)
                *reinterpret_cast<float4*>(&regN[i]) = *reinterpret_cast<const float4*>(&Bs[dotIdx * BN + threadCol * TN + i]);
#pragma unroll
            for (int r = 0; r < TM; ++r)
#pragma unroll
                for (int c = 0; c < TN; ++c) threadResults[r * TN + c] += regM[r] * regN[c];
        }
        __syncthreads();
    }
    const Epilogue ep{alpha, beta, bias_kind, act};
    for (int r = 0; r < TM; ++r)
        for (int c = 0; c < TN; ++c) {
            int m = m0 + threadRow * TM + r, n = n0 + threadCol * TN + c;
            if (m < M && n < N) D[(size_t)m * N + n] = ep(threadResults[r * TN + c], C, bias, m, n, N);
        }
}
