// expect: accepted — siboehm's kernel 4 (1D blocktiling, BM=BN=64, BK=8, TM=8, 512 threads) with zero-filled edges and the fused epilogue
#define BM 64
#define BN 64
#define BK 8
#define TM 8
#define THREADS 512
#define CEIL_DIV(M, N) (((M) + (N) - 1) / (N))

__device__ __forceinline__ float gelu(float x) {
    return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

extern "C" __global__ void __launch_bounds__(THREADS) gemm_bias_act(
    const float* A, const float* B, const float* C, const float* bias, float* D,
    int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    static_assert(BM * BN / TM == THREADS, "one thread per TM outputs");
    const uint cRow = blockIdx.y, cCol = blockIdx.x;
    const int threadCol = threadIdx.x % BN;
    const int threadRow = threadIdx.x / BN;
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int innerColA = threadIdx.x % BK, innerRowA = threadIdx.x / BK;
    const int innerColB = threadIdx.x % BN, innerRowB = threadIdx.x / BN;
    float threadResults[TM] = {0.0f};
    for (int bkIdx = 0; bkIdx < K; bkIdx += BK) {
        int ar = cRow * BM + innerRowA, ac = bkIdx + innerColA;
        As[innerRowA * BK + innerColA] = (ar < M && ac < K) ? A[(size_t)ar * K + ac] : 0.0f;
        int br = bkIdx + innerRowB, bc = cCol * BN + innerColB;
        Bs[innerRowB * BN + innerColB] = (br < K && bc < N) ? B[(size_t)br * N + bc] : 0.0f;
        __syncthreads();
        for (uint dotIdx = 0; dotIdx < BK; ++dotIdx) {
            float tmpB = Bs[dotIdx * BN + threadCol];
            for (uint resIdx = 0; resIdx < TM; ++resIdx)
                threadResults[resIdx] += As[(threadRow * TM + resIdx) * BK + dotIdx] * tmpB;
        }
        __syncthreads();
    }
    for (uint resIdx = 0; resIdx < TM; ++resIdx) {
        int m = cRow * BM + threadRow * TM + resIdx, n = cCol * BN + threadCol;
        if (m >= M || n >= N) continue;
        float v = alpha * threadResults[resIdx];
        if (beta != 0.0f) v += beta * C[(size_t)m * N + n];
        if (bias_kind == 1) v += bias[n];
        else if (bias_kind == 2) v += bias[m];
        else if (bias_kind == 3) v += bias[0];
        if (act == 1) v = max(v, 0.0f);
        else if (act == 2) v = gelu(v);
        D[(size_t)m * N + n] = v;
    }
}
