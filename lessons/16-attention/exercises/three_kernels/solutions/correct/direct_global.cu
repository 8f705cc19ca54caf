// Correct without shared memory: every thread of the score and P·V kernels
// reads its row and column straight from global memory (the caches do the
// reuse); the softmax is the reference's.
// Attention in three launches: P = QKᵀ/sqrt(D) (masked), P = softmax(P) row by row, O = P V.
// Q, K, V, O are BH x S x D, P is a BH x S x S scratch buffer in global memory.
// Launches 1 and 3 are 16x16 output tiles (one thread per element) that step
// through their shared dimension 16 at a time in shared memory; launch 2 is one
// block per row: max, then sum of exp, then the normalised write.
#define TILE 16

extern "C" __global__ void attn_scores(const float* Q, const float* K, float* P, int S, int D, int causal) {
    const int i = blockIdx.y * TILE + threadIdx.x / TILE, j = blockIdx.x * TILE + threadIdx.x % TILE;
    if (i >= S || j >= S) return;
    const size_t base = (size_t)blockIdx.z * S * D;
    float dot = 0.0f;
    for (int d = 0; d < D; ++d) dot += Q[base + (size_t)i * D + d] * K[base + (size_t)j * D + d];
    P[(size_t)blockIdx.z * S * S + (size_t)i * S + j] = causal && j > i ? -INFINITY : dot * rsqrtf((float)D);
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
    const int i = blockIdx.y * TILE + threadIdx.x / TILE, c = blockIdx.x * TILE + threadIdx.x % TILE;
    if (i >= S || c >= D) return;
    const float* p = P + (size_t)blockIdx.z * S * S + (size_t)i * S;
    const size_t base = (size_t)blockIdx.z * S * D;
    float acc = 0.0f;
    for (int j = 0; j < S; ++j) acc += p[j] * V[base + (size_t)j * D + c];
    O[base + (size_t)i * D + c] = acc;
}
