// BUG: bias kinds swapped: "per column" adds bias[m] and "per row" adds
// bias[n]. Square tests with a symmetric bias would not notice; M != N does.
#define BM 16
#define BN 16
#define THREADS 256
#define TILE 16

__device__ float gelu_tanh(float x) {
    return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}

extern "C" __global__ void gemm_bias_act(const float* A, const float* B, const float* C, const float* bias,
                                         float* D, int M, int N, int K, float alpha, float beta,
                                         int bias_kind, int act) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int ty = threadIdx.x / TILE, tx = threadIdx.x % TILE;
    int m = blockIdx.y * TILE + ty, n = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        // zero-fill outside the matrices so the tail tile multiplies correctly
        As[ty][tx] = (m < M && k0 + tx < K) ? A[(size_t)m * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && n < N) ? B[(size_t)(k0 + ty) * N + n] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (m >= M || n >= N) return;
    float v = alpha * acc;
    if (beta != 0.0f) v += beta * C[(size_t)m * N + n];
    if (bias_kind == 1) v += bias[m];
    else if (bias_kind == 2) v += bias[n];
    else if (bias_kind == 3) v += bias[0];
    if (act == 1) v = fmaxf(v, 0.0f);
    else if (act == 2) v = gelu_tanh(v);
    D[(size_t)m * N + n] = v;
}
