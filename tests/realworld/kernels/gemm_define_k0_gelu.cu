// expect: accepted — GELU's constants as `#define k0` / `#define k1` macros, a 16x16 shared-memory tile, an enum class for the activation
#define BM 16
#define BN 16
#define THREADS 256
#define k0 0.7978845608028654f
#define k1 0.044715f

enum class Act : int { None = 0, Relu = 1, Gelu = 2 };

__device__ __forceinline__ float apply(Act act, float v) {
    switch (act) {
        case Act::Relu: return fmaxf(v, 0.0f);
        case Act::Gelu: return 0.5f * v * (1.0f + tanhf(k0 * (v + k1 * v * v * v)));
        default: return v;
    }
}

extern "C" __global__ void gemm_bias_act(const float* A, const float* B, const float* C, const float* bias, float* D,
                                         int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    __shared__ float As[16][16];
    __shared__ float Bs[16][17];
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
    const int m = blockIdx.y * BM + ty, n = blockIdx.x * BN + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += 16) {
        As[ty][tx] = (m < M && t + tx < K) ? A[(size_t)m * K + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < K && n < N) ? B[(size_t)(t + ty) * N + n] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (m < M && n < N) {
        float v = alpha * acc;
        if (beta != 0.0f) v += beta * C[(size_t)m * N + n];
        if (bias_kind == 1) v += bias[n];
        else if (bias_kind == 2) v += bias[m];
        else if (bias_kind == 3) v += bias[0];
        D[(size_t)m * N + n] = apply(static_cast<Act>(act), v);
    }
}
