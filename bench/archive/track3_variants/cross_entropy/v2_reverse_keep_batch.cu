// Variant: v1_batched_reverse.cu, and each thread's first BATCH vectors kept in registers from pass 1
// (64 KB of a row at 1024 threads), so pass 2 re-reads less and the rows in flight take less of L2.
// The reference with its write pass batched like its first pass: BATCH
// float4 loads in flight per thread instead of one (lesson 04's softmax
// writes this way). Same results as the reference: only the number of loads
// each thread has in flight in the write pass differs.
#define BATCH 4
// __expf (ex2.approx): a few ulp, far inside the tolerance, and cheaper than expf.
#define EXP __expf
#define NEG_INF __int_as_float(0xff800000)  // -inf; NVRTC has no <math.h>

// Merge two (max, sum-of-exp) pairs: rescale each sum to the larger max.
__device__ __forceinline__ void online_merge(float& m, float& s, float m2, float s2) {
    float mn = fmaxf(m, m2);
    if (mn == NEG_INF) return;
    s = s * EXP(m - mn) + s2 * EXP(m2 - mn);
    m = mn;
}
// Fold four logits into a running (max, sum); the sum is rescaled only when the max grows.
__device__ __forceinline__ void absorb4(float& m, float& s, float4 v) {
    float mv = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
    if (mv > m) { s = (m == NEG_INF) ? 0.0f : s * EXP(m - mv); m = mv; }
    s += EXP(v.x - m) + EXP(v.y - m) + EXP(v.z - m) + EXP(v.w - m);
}
__device__ __forceinline__ void warp_merge(float& m, float& s) {
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        online_merge(m, s, m2, s2);
    }
}
// Every thread ends with the row's (max, sum): each warp merges, lane 0 writes
// its pair to shared memory, then every warp merges the pairs itself.
__device__ void block_merge(float& m, float& s) {
    __shared__ float sm[32], ss[32];
    warp_merge(m, s);
    if (blockDim.x == 32) return;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    m = lane < (int)(blockDim.x >> 5) ? sm[lane] : NEG_INF;
    s = lane < (int)(blockDim.x >> 5) ? ss[lane] : 0.0f;
    warp_merge(m, s);
}

// The gradient of four logits starting at column c.
__device__ __forceinline__ float4 grad4(float4 v, int c, float m, float inv, float scale, int target) {
    return make_float4((EXP(v.x - m) * inv - (c == target)) * scale, (EXP(v.y - m) * inv - (c + 1 == target)) * scale,
                       (EXP(v.z - m) * inv - (c + 2 == target)) * scale, (EXP(v.w - m) * inv - (c + 3 == target)) * scale);
}

extern "C" __global__ void cross_entropy(const float* logits, const int* targets, float* loss,
                                         float* grad, int rows, int vocab) {
    const int row = blockIdx.x, nt = blockDim.x, tid = threadIdx.x;
    const float* xr = logits + (size_t)row * vocab;
    float* gr = grad + (size_t)row * vocab;
    const bool vec = (vocab % 4 == 0);  // then every row starts 16-byte aligned
    const int n4 = vocab / 4;
    float m = NEG_INF, s = 0.0f;
    const bool full = vec && n4 >= BATCH * nt;  // every thread has a whole first batch
    float4 keep[BATCH];
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        int i = tid;
        if (full) {  // the first batch, kept for pass 2
#pragma unroll
            for (int j = 0; j < BATCH; ++j) keep[j] = x4[tid + j * nt];
#pragma unroll
            for (int j = 0; j < BATCH; ++j) absorb4(m, s, keep[j]);
            i += BATCH * nt;
        }
        for (; i + (BATCH - 1) * nt < n4; i += BATCH * nt) {
            float4 b[BATCH];
#pragma unroll
            for (int j = 0; j < BATCH; ++j) b[j] = x4[i + j * nt];
#pragma unroll
            for (int j = 0; j < BATCH; ++j) absorb4(m, s, b[j]);
        }
        for (; i < n4; i += nt) absorb4(m, s, x4[i]);
    } else {
        for (int i = tid; i < vocab; i += nt) online_merge(m, s, xr[i], 1.0f);
    }
    block_merge(m, s);
    const int target = targets[row];
    if (tid == 0) loss[row] = m + __logf(s) - xr[target];  // log-sum-exp minus the target logit
    const float inv = 1.0f / s, scale = 1.0f / rows;
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        float4* g4 = reinterpret_cast<float4*>(gr);
        // this thread's vectors from the last to the first: the end of the row,
        // read last in pass 1, is the part most likely still in L2
        const int lo = full ? BATCH * nt : 0;  // below lo: the kept batch
        int i = tid < n4 ? tid + (n4 - 1 - tid) / nt * nt : -1;
        for (; i >= lo + (BATCH - 1) * nt; i -= BATCH * nt) {  // BATCH loads in flight, as in pass 1
            float4 b[BATCH];
#pragma unroll
            for (int j = 0; j < BATCH; ++j) b[j] = __ldcs(x4 + i - j * nt);
#pragma unroll
            for (int j = 0; j < BATCH; ++j) __stcs(g4 + i - j * nt, grad4(b[j], 4 * (i - j * nt), m, inv, scale, target));
        }
        for (; i >= lo; i -= nt) __stcs(g4 + i, grad4(__ldcs(x4 + i), 4 * i, m, inv, scale, target));
        if (full) {
#pragma unroll
            for (int j = 0; j < BATCH; ++j) __stcs(g4 + tid + j * nt, grad4(keep[j], 4 * (tid + j * nt), m, inv, scale, target));
        }
    } else {
        for (int c = tid; c < vocab; c += nt) gr[c] = (EXP(xr[c] - m) * inv - (c == target)) * scale;
    }
}
