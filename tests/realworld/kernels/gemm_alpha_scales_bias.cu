// expect: wrong_answer — alpha multiplies the bias too (alpha * (acc + bias)): wrong wherever alpha != 1 and there is a bias
#define BM 16
#define BN 16
#define THREADS 256
#define TILE 16

extern "C" __global__ void gemm_bias_act(const float* A, const float* B, const float* C, const float* bias, float* D,
                                         int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    __shared__ float As[TILE][TILE], Bs[TILE][TILE + 1];
    int ty = threadIdx.x / TILE, tx = threadIdx.x % TILE;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) {
        float b = bias_kind == 1 ? bias[col] : bias_kind == 2 ? bias[row] : bias_kind == 3 ? bias[0] : 0.0f;
        float v = alpha * (acc + b) + (beta != 0.0f ? beta * C[row * N + col] : 0.0f);
        if (act == 1) v = fmaxf(v, 0.0f);
        if (act == 2) v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        D[row * N + col] = v;
    }
}
