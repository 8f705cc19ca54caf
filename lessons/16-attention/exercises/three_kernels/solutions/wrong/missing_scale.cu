// BUG: the scores are not multiplied by 1/sqrt(D): the softmax is sqrt(D) times too sharp.
// Attention in three launches: P = QKᵀ/sqrt(D) (masked), P = softmax(P) row by row, O = P V.
// Q, K, V, O are BH x S x D, P is a BH x S x S scratch buffer in global memory.
// Launches 1 and 3 are 16x16 output tiles (one thread per element) that step
// through their shared dimension 16 at a time in shared memory; launch 2 is one
// block per row: max, then sum of exp, then the normalised write.
#define TILE 16

extern "C" __global__ void attn_scores(const float* Q, const float* K, float* P, int S, int D, int causal) {
    __shared__ float qs[TILE][TILE + 1], ks[TILE][TILE + 1];  // +1: no bank conflicts on the column reads
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    const int i = blockIdx.y * TILE + ty, j0 = blockIdx.x * TILE;
    const size_t base = (size_t)blockIdx.z * S * D;
    float dot = 0.0f;
    for (int d0 = 0; d0 < D; d0 += TILE) {
        qs[ty][tx] = i < S && d0 + tx < D ? Q[base + (size_t)i * D + d0 + tx] : 0.0f;
        ks[ty][tx] = j0 + ty < S && d0 + tx < D ? K[base + (size_t)(j0 + ty) * D + d0 + tx] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int d = 0; d < TILE; ++d) dot += qs[ty][d] * ks[tx][d];
        __syncthreads();
    }
    const int j = j0 + tx;
    if (i < S && j < S)
        P[(size_t)blockIdx.z * S * S + (size_t)i * S + j] = causal && j > i ? -INFINITY : dot;
}

__device__ __forceinline__ float block_reduce(float v, bool is_max, float* shared) {
    for (int off = 16; off > 0; off >>= 1) {
        float other = __shfl_xor_sync(0xffffffffu, v, off);
        v = is_max ? fmaxf(v, other) : v + other;
    }
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    __syncthreads();  // shared is reused by the next reduction
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    v = lane < warps ? shared[lane] : (is_max ? -INFINITY : 0.0f);
    for (int off = 16; off > 0; off >>= 1) {
        float other = __shfl_xor_sync(0xffffffffu, v, off);
        v = is_max ? fmaxf(v, other) : v + other;
    }
    return v;
}

extern "C" __global__ void attn_softmax(float* P, int S, int causal) {
    __shared__ float partial[32];
    const int i = blockIdx.x;
    float* row = P + (size_t)blockIdx.y * S * S + (size_t)i * S;
    const int keys = causal ? i + 1 : S;  // the masked tail is -inf: it only has to become 0
    float m = -INFINITY;
    for (int j = threadIdx.x; j < keys; j += blockDim.x) m = fmaxf(m, row[j]);
    m = block_reduce(m, true, partial);
    float sum = 0.0f;
    for (int j = threadIdx.x; j < keys; j += blockDim.x) sum += expf(row[j] - m);
    const float inv = 1.0f / block_reduce(sum, false, partial);
    for (int j = threadIdx.x; j < S; j += blockDim.x) row[j] = j < keys ? expf(row[j] - m) * inv : 0.0f;
}

extern "C" __global__ void attn_pv(const float* P, const float* V, float* O, int S, int D) {
    __shared__ float ps[TILE][TILE + 1], vs[TILE][TILE + 1];
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    const int i = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx;
    const float* p = P + (size_t)blockIdx.z * S * S;
    const size_t base = (size_t)blockIdx.z * S * D;
    float acc = 0.0f;
    for (int j0 = 0; j0 < S; j0 += TILE) {
        ps[ty][tx] = i < S && j0 + tx < S ? p[(size_t)i * S + j0 + tx] : 0.0f;
        vs[ty][tx] = j0 + ty < S && c < D ? V[base + (size_t)(j0 + ty) * D + c] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int j = 0; j < TILE; ++j) acc += ps[ty][j] * vs[j][tx];
        __syncthreads();
    }
    if (i < S && c < D) O[base + (size_t)i * D + c] = acc;
}
