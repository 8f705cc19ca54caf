// expect: accepted — the naive kernel: one output per thread, 32x32 tiles of 1024 threads, threadIdx.x decomposed into (row, col)
#define BM 32
#define BN 32
#define THREADS 1024

extern "C" __global__ void gemm_bias_act(const float* A, const float* B, const float* C, const float* bias, float* D,
                                         int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    const int row = blockIdx.y * BM + threadIdx.x / BN;
    const int col = blockIdx.x * BN + threadIdx.x % BN;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    float v = alpha * acc;
    if (beta != 0.0f) v += beta * C[row * N + col];
    if (bias_kind == 1) v += bias[col];
    if (bias_kind == 2) v += bias[row];
    if (bias_kind == 3) v += bias[0];
    if (act == 1) v = fmaxf(0.0f, v);
    if (act == 2) {
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        v = 0.5f * v * (1.0f + tanhf(inner));
    }
    D[row * N + col] = v;
}
