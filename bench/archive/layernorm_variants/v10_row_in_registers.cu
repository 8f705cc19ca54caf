// Experiment (docs/benchmarks.md, "Track 3"): lesson 04's layernorm reference.cu, changed as follows.
// v10: long rows keep RK float4 per thread in registers (one block per SM,
// __launch_bounds__(1024, 1): 64 registers), so x is read from DRAM once and
// only the part past RK * blockDim float4 is read again (L1/L2). All register
// loads are issued before any arithmetic; the shifted sum and sum of squares
// go through ONE block reduction (a float2), not two; weight/bias/x reads in
// the write pass are read-only loads (__ldg), which the compiler may move
// above the stores to y (an ordinary or __ldcs load of x could alias y).
// No shared memory beyond the reduction scratch, so short rows keep their
// occupancy (apart from the register count).
#define VPT 4    // float4 vectors cached per thread on the short-row fast path
#define RK 10    // float4 vectors cached per thread in registers on the long-row path (11 spills)

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
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
// Two sums in one pass of barriers (a single call per kernel: no leading barrier needed
// beyond the one that separates the writes from the reads).
__device__ void block_sum2(float& a, float& b, float2* scratch) {
    a = warp_sum(a);
    b = warp_sum(b);
    if (blockDim.x == 32) return;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) scratch[warp] = make_float2(a, b);
    __syncthreads();
    float2 p = lane < (int)(blockDim.x >> 5) ? scratch[lane] : make_float2(0.0f, 0.0f);
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
extern "C" __global__ void __launch_bounds__(1024, 1)
layernorm(const float* x, const float* weight, const float* bias, float* y, int rows, int cols, float eps) {
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
        float q = 0.0f;
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
        const int last = n4 - 1;  // clamped index for the loads of the write pass
        float k = __ldg(xr);  // shift: sum((x-k)^2) has no cancellation problem when |mean| is large
        float4 v[RK];
        // every register load of the row is issued before any of them is used
#pragma unroll
        for (int j = 0; j < RK; ++j) {
            int c = tid + j * nt;
            v[j] = c < n4 ? __ldcs(x4 + c) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
        float s = 0.0f, q = 0.0f;
        const float4 k4 = make_float4(k, k, k, k);  // a slot past the row counts as k: adds 0
        // the part that does not fit: streamed now (2 loads in flight,
        // issued while the register loads are still on their way), read again below
        int i = tid + RK * nt;
        for (; i + nt < n4; i += 2 * nt) {
            float4 t0 = __ldg(x4 + i), t1 = __ldg(x4 + i + nt);
            acc4(t0, k, s, q);
            acc4(t1, k, s, q);
        }
        if (i < n4) acc4(__ldg(x4 + i), k, s, q);
#pragma unroll
        for (int j = 0; j < RK; ++j) acc4(tid + j * nt < n4 ? v[j] : k4, k, s, q);
        block_sum2(s, q, scratch2);
        float ds = s / cols;
        float var = fmaxf(q / cols - ds * ds, 0.0f);
        float mean = k + ds;
        float rstd = rsqrtf(var + eps);
        // straight-line write pass: a slot past the row loads weight/bias at a clamped
        // index and skips only its store, so no slot is a branch that would keep the
        // compiler from issuing later slots' weight/bias loads before earlier stores
#pragma unroll
        for (int j = 0; j < RK; ++j) {
            int c = tid + j * nt, cc = min(c, last);
            float4 o = norm4(v[j], mean, rstd, __ldg(w4 + cc), __ldg(b4 + cc));
            if (c < n4) __stcs(y4 + c, o);
        }
        for (i = tid + RK * nt; i < n4; i += 2 * nt) {  // the rest, read again: 2 slots in flight
            int c1 = min(i + nt, last);
            float4 x0 = __ldg(x4 + i), x1 = __ldg(x4 + c1);
            float4 o0 = norm4(x0, mean, rstd, __ldg(w4 + i), __ldg(b4 + i));
            float4 o1 = norm4(x1, mean, rstd, __ldg(w4 + c1), __ldg(b4 + c1));
            __stcs(y4 + i, o0);
            if (i + nt < n4) __stcs(y4 + i + nt, o1);
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
