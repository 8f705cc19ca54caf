// Experiment (docs/benchmarks.md, "Track 3"): lesson 04's layernorm reference.cu, changed as follows.
// v14: v8 (4 float4 per thread kept in registers), but every batch issues all its loads before any use: guarded slots load a clamped index (only the accumulate/store is guarded); write pass loads x, weight, bias of 4 slots before their 4 stores (__stcs has a "memory" clobber, so nothing is hoisted over it); one float2 reduction (2 barriers, not 4). Bit-identical to the reference.
#define KEEP 4   // float4 per thread kept in registers from the first pass to the write pass
#define RB 3     // float4 loads in flight per batch, first pass over the rest of the row
#define WB 4     // slots (x, weight, bias loads) in flight per batch, write pass over the rest
#define KG 4     // kept slots whose weight/bias loads are issued together in the write pass
#define PREFETCH 0  // 1: weight/bias of the kept slots are loaded before the block reduction
// LayerNorm over the last dimension, one block per row:
//   y = (x - mean) / sqrt(var + eps) * weight + bias,  var = mean((x - mean)^2)  (biased)
// Short rows (n4 <= VPT * blockDim): the reference's fast path, unchanged.
// Long rows: KEEP float4 per thread stay in registers from the first pass to
// the write pass; the rest is streamed in batches of RB (first pass) and WB
// (write pass). Every load of a batch is issued before the batch is used:
// a slot past the row loads from a clamped, valid index (n4 - 1) and is
// replaced by k (first pass: adds exactly 0) or has only its store skipped,
// so no slot is a branch that would serialise the loads behind it. Slots are
// accumulated in ascending order and reduced by the same tree as the
// reference (one float2 reduction = the reference's two block_sum calls),
// so the output is bit-identical to reference.cu's.
#ifndef PREFETCH
#define PREFETCH 0
#endif
#define VPT 4  // float4 vectors cached per thread on the short-row fast path

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
// Two sums, the same tree as two block_sum calls. Called once per block (no
// other use of scratch2), so no leading barrier is needed.
__device__ __forceinline__ void block_sum2(float& a, float& b, float2* scratch2) {
    a = warp_sum(a);
    b = warp_sum(b);
    if (blockDim.x == 32) return;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) scratch2[warp] = make_float2(a, b);
    __syncthreads();
    float2 p = lane < (int)(blockDim.x >> 5) ? scratch2[lane] : make_float2(0.0f, 0.0f);
    a = warp_sum(p.x);
    b = warp_sum(p.y);
}
__device__ __forceinline__ float4 norm4(float4 v, float mean, float rstd, float4 w, float4 b) {
    return make_float4((v.x - mean) * rstd * w.x + b.x, (v.y - mean) * rstd * w.y + b.y,
                       (v.z - mean) * rstd * w.z + b.z, (v.w - mean) * rstd * w.w + b.w);
}
__device__ __forceinline__ void acc4(float4 v, float k, float& s, float& q) {
    float a0 = v.x - k, a1 = v.y - k, a2 = v.z - k, a3 = v.w - k;
    s += (a0 + a1) + (a2 + a3);
    q += (a0 * a0 + a1 * a1) + (a2 * a2 + a3 * a3);
}
extern "C" __global__ void __launch_bounds__(1024) layernorm(const float* x, const float* weight, const float* bias,
                                     float* y, int rows, int cols, float eps) {
    __shared__ float scratch[32];
    __shared__ float2 scratch2[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    bool vec = (cols % 4 == 0) && ((size_t)xr % 16 == 0) && ((size_t)yr % 16 == 0) &&
               ((size_t)weight % 16 == 0) && ((size_t)bias % 16 == 0);
    int n4 = cols / 4;
    const int nt = blockDim.x, tid = threadIdx.x;
    const float4* w4 = reinterpret_cast<const float4*>(weight);
    const float4* b4 = reinterpret_cast<const float4*>(bias);
    if (vec && n4 <= VPT * nt) {  // the reference's fast path, unchanged
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
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        float4* y4 = reinterpret_cast<float4*>(yr);
        const int last = n4 - 1;  // n4 > VPT * nt >= 4 here: a valid index
        const float k = xr[0];    // shift: sum((x-k)^2) has no cancellation when |mean| is large
        const float4 k4 = make_float4(k, k, k, k);  // a slot past the row: a - k = 0 exactly
        float4 v[KEEP];
#pragma unroll
        for (int j = 0; j < KEEP; ++j) {
            int c = tid + j * nt;
            float4 t = x4[min(c, last)];
            v[j] = c < n4 ? t : k4;
        }
        float s = 0.0f, q = 0.0f;
#pragma unroll
        for (int j = 0; j < KEEP; ++j) acc4(v[j], k, s, q);
        for (int i = tid + KEEP * nt; i < n4; i += RB * nt) {  // the rest, first read (DRAM)
            float4 b[RB];
#pragma unroll
            for (int j = 0; j < RB; ++j) {
                int c = i + j * nt;
                float4 t = x4[min(c, last)];
                b[j] = c < n4 ? t : k4;
            }
#pragma unroll
            for (int j = 0; j < RB; ++j) acc4(b[j], k, s, q);
        }
#if PREFETCH
        // weight/bias of the kept slots do not depend on the statistics: their
        // loads are in flight across the reduction's barriers
        float4 wk[KEEP], bk[KEEP];
#pragma unroll
        for (int j = 0; j < KEEP; ++j) {
            int c = min(tid + j * nt, last);
            wk[j] = __ldg(w4 + c);
            bk[j] = __ldg(b4 + c);
        }
#endif
        block_sum2(s, q, scratch2);
        float ds = s / cols;
        float var = fmaxf(q / cols - ds * ds, 0.0f);
        float mean = k + ds;
        float rstd = rsqrtf(var + eps);
        // the kept slots first (frees their registers for the rest's batches),
        // in groups of KG: all of a group's weight/bias loads before its stores
#pragma unroll
        for (int g = 0; g < KEEP; g += KG) {
#if PREFETCH
#pragma unroll
            for (int j = g; j < g + KG && j < KEEP; ++j) {
                int c = tid + j * nt;
                if (c < n4) __stcs(y4 + c, norm4(v[j], mean, rstd, wk[j], bk[j]));
            }
#else
            float4 wg[KG], bg[KG];
#pragma unroll
            for (int j = 0; j < KG; ++j) {
                int c = min(tid + (g + j) * nt, last);
                if (g + j < KEEP) { wg[j] = __ldg(w4 + c); bg[j] = __ldg(b4 + c); }
            }
#pragma unroll
            for (int j = 0; j < KG; ++j) {
                int c = tid + (g + j) * nt;
                if (g + j < KEEP && c < n4) __stcs(y4 + c, norm4(v[g + j], mean, rstd, wg[j], bg[j]));
            }
#endif
        }
        // the rest, read again (L2; evict-first): all WB slots' loads before their stores
        for (int i = tid + KEEP * nt; i < n4; i += WB * nt) {
            float4 xb[WB], wb[WB], bb[WB];
#pragma unroll
            for (int j = 0; j < WB; ++j) {
                int c = min(i + j * nt, last);
                xb[j] = __ldcs(x4 + c);
                wb[j] = __ldg(w4 + c);
                bb[j] = __ldg(b4 + c);
            }
#pragma unroll
            for (int j = 0; j < WB; ++j) {
                int c = i + j * nt;
                float4 o = norm4(xb[j], mean, rstd, wb[j], bb[j]);
                if (c < n4) __stcs(y4 + c, o);
            }
        }
        return;
    }
    // unaligned rows: the reference's scalar path
    float k = xr[0];
    float s = 0.0f, q = 0.0f;
    for (int i = tid; i < cols; i += nt) { float d = xr[i] - k; s += d; q += d * d; }
    s = block_sum(s, scratch);
    q = block_sum(q, scratch);
    float ds = s / cols;
    float var = fmaxf(q / cols - ds * ds, 0.0f);
    float mean = k + ds;
    float rstd = rsqrtf(var + eps);
    for (int i = tid; i < cols; i += nt) yr[i] = (xr[i] - mean) * rstd * weight[i] + bias[i];
}
