// expect: accepted — siboehm-style warptiling: 64x64 block tile, 2x2 warps of 32x32, each lane an 8x4 thread tile, constexpr sizes, namespaces
namespace cfg {
constexpr int BM = 64, BN = 64, BK = 16;
constexpr int WM = 32, WN = 32;          // warp tile
constexpr int TM = 8, TN = 4;            // thread tile
constexpr int THREADS = 128;
static_assert((BM / WM) * (BN / WN) * 32 == THREADS, "one warp per warp tile");
static_assert((WM / TM) * (WN / TN) == 32, "one lane per thread tile");
}
#define BM 64
#define BN 64
#define THREADS 128

__device__ __forceinline__ float activate(float v, int act) {
    switch (act) {
        case 1: return v > 0.0f ? v : 0.0f;
        case 2: return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        default: return v;
    }
}

extern "C" __global__ void gemm_bias_act(const float* A, const float* B, const float* C, const float* bias, float* D,
                                         int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    using namespace cfg;
    __shared__ float As[BK][BM + 4];
    __shared__ float Bs[BK][BN];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_m = warp / (BN / WN), warp_n = warp % (BN / WN);
    const int lane_m = lane / (WN / TN), lane_n = lane % (WN / TN);
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
            int r = e / BK, c = e % BK;
            As[c][r] = (m0 + r < M && k0 + c < K) ? A[(size_t)(m0 + r) * K + k0 + c] : 0.0f;
        }
        for (int e = threadIdx.x; e < BK * BN; e += THREADS) {
            int r = e / BN, c = e % BN;
            Bs[r][c] = (k0 + r < K && n0 + c < N) ? B[(size_t)(k0 + r) * N + n0 + c] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[kk][warp_m * WM + lane_m * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[kk][warp_n * WN + lane_n * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int m = m0 + warp_m * WM + lane_m * TM + i;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int n = n0 + warp_n * WN + lane_n * TN + j;
            if (m < M && n < N) {
                float v = alpha * acc[i][j] + (beta != 0.0f ? beta * C[(size_t)m * N + n] : 0.0f);
                if (bias_kind) v += bias[bias_kind == 1 ? n : bias_kind == 2 ? m : 0];
                D[(size_t)m * N + n] = activate(v, act);
            }
        }
    }
}
