// Experiment (docs/benchmarks.md, "Track 3"): lesson 04's layernorm reference.cu, changed as follows.
// v3: as v1 with 3072 float4 (12,288 columns) through L1.
// LayerNorm over the last dimension, one block per row:
//   y = (x - mean) / sqrt(var + eps) * weight + bias,  var = mean((x - mean)^2)  (biased)
// Fast path: the row is read once into registers (VPT float4 per thread), so
// the mean, the two-pass variance and the write all reuse those registers.
// Long or unaligned rows: one pass of shifted sums (shift k = x[0], which keeps
// sum((x-k)^2) free of the cancellation that E[x^2] - mean^2 suffers), then a
// write pass that re-reads the row (from L2, evict-first). Both passes keep
// BATCH loads in flight.
#define VPT 4    // float4 vectors cached per thread on the fast path
#define BATCH 4  // independent float4 loads in flight on the long-row path
#ifndef L1_VECS
#define L1_VECS 3072
#endif
__device__ __forceinline__ float4 wload(const float4* p, int i) { return i < L1_VECS ? __ldg(p + i) : __ldcg(p + i); }

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
// Every thread gets the sum. The leading barrier lets a second call reuse
// `scratch` only after all threads have read the first call's partials.
__device__ float block_sum(float v, float* scratch) {
    v = warp_sum(v);
    if (blockDim.x == 32) return v;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? scratch[lane] : 0.0f;
    return warp_sum(v);
}
__device__ __forceinline__ float4 norm4(float4 v, float mean, float rstd, float4 w, float4 b) {
    return make_float4((v.x - mean) * rstd * w.x + b.x, (v.y - mean) * rstd * w.y + b.y,
                       (v.z - mean) * rstd * w.z + b.z, (v.w - mean) * rstd * w.w + b.w);
}
extern "C" __global__ void layernorm(const float* x, const float* weight, const float* bias,
                                     float* y, int rows, int cols, float eps) {
    __shared__ float scratch[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    bool vec = (cols % 4 == 0) && ((size_t)xr % 16 == 0) && ((size_t)yr % 16 == 0) &&
               ((size_t)weight % 16 == 0) && ((size_t)bias % 16 == 0);
    int n4 = cols / 4;
    const int nt = blockDim.x, tid = threadIdx.x;
    const float4* w4 = reinterpret_cast<const float4*>(weight);
    const float4* b4 = reinterpret_cast<const float4*>(bias);
    if (vec && n4 <= VPT * nt) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        float4 v[VPT];
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            int i = tid + j * nt;
            if (i < n4) { v[j] = x4[i]; s += (v[j].x + v[j].y) + (v[j].z + v[j].w); }
        }
        float mean = block_sum(s, scratch) / cols;
        float q = 0.0f;  // second pass over registers: exact two-pass variance
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            if (tid + j * nt < n4) {
                float dx = v[j].x - mean, dy = v[j].y - mean, dz = v[j].z - mean, dw = v[j].w - mean;
                q += (dx * dx + dy * dy) + (dz * dz + dw * dw);
            }
        }
        float rstd = rsqrtf(block_sum(q, scratch) / cols + eps);
        float4* y4 = reinterpret_cast<float4*>(yr);
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            int i = tid + j * nt;
            if (i < n4) y4[i] = norm4(v[j], mean, rstd, w4[i], b4[i]);
        }
        return;
    }
    float k = xr[0];
    float s = 0.0f, q = 0.0f;
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        int i = tid;
        for (; i + (BATCH - 1) * nt < n4; i += BATCH * nt) {
            float4 b[BATCH];
#pragma unroll
            for (int j = 0; j < BATCH; ++j) b[j] = __ldcg(x4 + i + j * nt);
#pragma unroll
            for (int j = 0; j < BATCH; ++j) {
                float a0 = b[j].x - k, a1 = b[j].y - k, a2 = b[j].z - k, a3 = b[j].w - k;
                s += (a0 + a1) + (a2 + a3);
                q += (a0 * a0 + a1 * a1) + (a2 * a2 + a3 * a3);
            }
        }
        for (; i < n4; i += nt) {
            float4 v = __ldcg(x4 + i);
            float a0 = v.x - k, a1 = v.y - k, a2 = v.z - k, a3 = v.w - k;
            s += (a0 + a1) + (a2 + a3);
            q += (a0 * a0 + a1 * a1) + (a2 * a2 + a3 * a3);
        }
    } else {
        for (int i = tid; i < cols; i += nt) { float d = xr[i] - k; s += d; q += d * d; }
    }
    s = block_sum(s, scratch);
    q = block_sum(q, scratch);
    float ds = s / cols;
    float var = fmaxf(q / cols - ds * ds, 0.0f);
    float mean = k + ds;
    float rstd = rsqrtf(var + eps);
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        float4* y4 = reinterpret_cast<float4*>(yr);
        int i = tid;
        // The last read of x and the write of y are marked evict-first
        // (__ldcs / __stcs), so the rows other blocks are still to re-read and
        // weight/bias (read again by every row) stay in L2; __ldg sends
        // weight/bias through the read-only path (65% → 88% of copy bandwidth
        // at 4096 × 50,304).
        for (; i + (BATCH - 1) * nt < n4; i += BATCH * nt) {
            float4 b[BATCH];
#pragma unroll
            for (int j = 0; j < BATCH; ++j) b[j] = __ldcs(x4 + i + j * nt);
#pragma unroll
            for (int j = 0; j < BATCH; ++j)
                __stcs(y4 + i + j * nt, norm4(b[j], mean, rstd, wload(w4, i + j * nt), wload(b4, i + j * nt)));
        }
        for (; i < n4; i += nt) __stcs(y4 + i, norm4(__ldcs(x4 + i), mean, rstd, wload(w4, i), wload(b4, i)));
    } else {
        for (int i = tid; i < cols; i += nt) yr[i] = (xr[i] - mean) * rstd * weight[i] + bias[i];
    }
}
