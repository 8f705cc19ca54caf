// Fused GEMM + epilogue, FP32 (FMA), row-major:
//   D = act(alpha * (A @ B) + beta * C + bias)
// bias_kind: 0 none, 1 per column (bias[n]), 2 per row (bias[m]), 3 scalar (bias[0])
// act:       0 none, 1 ReLU, 2 GELU (tanh approximation)
// A block computes a 128x128 tile of D with 256 threads, 8x8 outputs per thread.
// K advances 8 at a time through double-buffered shared memory; the next
// slice is fetched into registers while the current one is multiplied.
// The epilogue runs on the accumulators in registers: D is written once.
#define BM 128
#define BN 128
#define THREADS 256
#define BK 8

__device__ __forceinline__ float gelu_tanh(float x) {
    const float k0 = 0.7978845608028654f;  // sqrt(2 / pi)
    const float k1 = 0.044715f;
    return 0.5f * x * (1.0f + tanhf(k0 * fmaf(k1 * x * x, x, x)));
}

__device__ __forceinline__ float epilogue(float acc, float c, float b, float alpha, float beta, int act) {
    float v = alpha * acc + beta * c + b;
    if (act == 1) v = fmaxf(v, 0.0f);
    else if (act == 2) v = gelu_tanh(v);
    return v;
}

__device__ __forceinline__ bool aligned16(const void* p) { return ((size_t)p & 15) == 0; }

extern "C" __global__ __launch_bounds__(THREADS) void
gemm_bias_act(const float* A, const float* B, const float* C, const float* bias, float* D,
              int M, int N, int K, float alpha, float beta, int bias_kind, int act) {
    __shared__ __align__(16) float As[2][BK][BM];  // A transposed: As[k][m]
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    // global -> shared mapping: A tile 128x8 (4 per thread), B tile 8x128 (4 per thread)
    const int a_row = tid >> 1, a_k = (tid & 1) * 4;
    const int b_k = tid >> 5, b_col = (tid & 31) * 4;
    const bool a_vec = (K % 4 == 0) && aligned16(A);
    const bool b_vec = (N % 4 == 0) && aligned16(B);
    // compute mapping: rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, same for columns
    const int ty = tid >> 4, tx = tid & 15;

    float a_reg[4], b_reg[4];
    auto fetch = [&](int k0) {
        int gm = m0 + a_row, gk = k0 + a_k;
        if (a_vec && gm < M && gk + 3 < K) {
            float4 v = *reinterpret_cast<const float4*>(A + (size_t)gm * K + gk);
            a_reg[0] = v.x; a_reg[1] = v.y; a_reg[2] = v.z; a_reg[3] = v.w;
        } else {
#pragma unroll
            for (int i = 0; i < 4; ++i) a_reg[i] = (gm < M && gk + i < K) ? A[(size_t)gm * K + gk + i] : 0.0f;
        }
        int bk = k0 + b_k, gn = n0 + b_col;
        if (b_vec && bk < K && gn + 3 < N) {
            float4 v = *reinterpret_cast<const float4*>(B + (size_t)bk * N + gn);
            b_reg[0] = v.x; b_reg[1] = v.y; b_reg[2] = v.z; b_reg[3] = v.w;
        } else {
#pragma unroll
            for (int i = 0; i < 4; ++i) b_reg[i] = (bk < K && gn + i < N) ? B[(size_t)bk * N + gn + i] : 0.0f;
        }
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int i = 0; i < 4; ++i) As[buf][a_k + i][a_row] = a_reg[i];
        *reinterpret_cast<float4*>(&Bs[buf][b_k][b_col]) = make_float4(b_reg[0], b_reg[1], b_reg[2], b_reg[3]);
    };

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    fetch(0);
    stash(0);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) fetch(k0 + BK);  // global loads in flight during the FMAs below
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[8], b[8];
            *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&As[buf][kk][ty * 4]);
            *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&As[buf][kk][64 + ty * 4]);
            *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Bs[buf][kk][tx * 4]);
            *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Bs[buf][kk][64 + tx * 4]);
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (more) stash(buf ^ 1);  // the other buffer: nobody reads it this step
        __syncthreads();
        buf ^= 1;
    }

    // Epilogue in registers; float4 stores where the row segment is whole and aligned.
    const bool d_vec = (N % 4 == 0) && aligned16(D) && (beta == 0.0f || aligned16(C));
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int m = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        if (m >= M) continue;
        const float row_bias = bias_kind == 2 ? bias[m] : (bias_kind == 3 ? bias[0] : 0.0f);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int n = n0 + h * 64 + tx * 4;
            float out[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int nj = n + j;
                if (nj < N) {
                    float c = beta != 0.0f ? C[(size_t)m * N + nj] : 0.0f;  // BLAS: C unread when beta == 0
                    float b = bias_kind == 1 ? bias[nj] : row_bias;
                    out[j] = epilogue(acc[i][h * 4 + j], c, b, alpha, beta, act);
                }
            }
            if (d_vec && n + 3 < N) {
                *reinterpret_cast<float4*>(D + (size_t)m * N + n) = make_float4(out[0], out[1], out[2], out[3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (n + j < N) D[(size_t)m * N + n + j] = out[j];
            }
        }
    }
}
