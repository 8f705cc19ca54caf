// Experiment (docs/benchmarks.md, "Track 3"): lesson 04's layernorm reference.cu, changed as follows.
// v6: on the long-row path a block takes two rows (2b and 2b + 1; blocks past
// rows / 2 leave at once), so each weight/bias vector read in the write pass
// serves both rows: the L2 traffic for weight and bias per row halves (402 KB
// to 201 KB at 50,304 columns). The write pass walks each thread's vectors from
// the last to the first: the end of the rows, read last in the first pass, is
// the most likely to be still in L2.
// LayerNorm over the last dimension:
//   y = (x - mean) / sqrt(var + eps) * weight + bias,  var = mean((x - mean)^2)  (biased)
// Fast path: the row is read once into registers (VPT float4 per thread), so
// the mean, the two-pass variance and the write all reuse those registers.
// Long or unaligned rows: one pass of shifted sums (shift k = x[0], which keeps
// sum((x-k)^2) free of the cancellation that E[x^2] - mean^2 suffers), then a
// write pass that re-reads the rows (from L2, evict-first).
#define VPT 4    // float4 vectors cached per thread on the fast path
#define BATCH 4  // independent float4 loads in flight per row on the long-row path
#ifndef REVERSE
#define REVERSE 1
#endif

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
// Four sums at once (two rows' shifted sum and sum of squares).
__device__ float4 block_sum4(float4 v, float4* scratch) {
    for (int o = 16; o > 0; o >>= 1) {
        v.x += __shfl_xor_sync(0xffffffffu, v.x, o); v.y += __shfl_xor_sync(0xffffffffu, v.y, o);
        v.z += __shfl_xor_sync(0xffffffffu, v.z, o); v.w += __shfl_xor_sync(0xffffffffu, v.w, o);
    }
    if (blockDim.x == 32) return v;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? scratch[lane] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int o = 16; o > 0; o >>= 1) {
        v.x += __shfl_xor_sync(0xffffffffu, v.x, o); v.y += __shfl_xor_sync(0xffffffffu, v.y, o);
        v.z += __shfl_xor_sync(0xffffffffu, v.z, o); v.w += __shfl_xor_sync(0xffffffffu, v.w, o);
    }
    return v;
}
__device__ __forceinline__ float4 norm4(float4 v, float mean, float rstd, float4 w, float4 b) {
    return make_float4((v.x - mean) * rstd * w.x + b.x, (v.y - mean) * rstd * w.y + b.y,
                       (v.z - mean) * rstd * w.z + b.z, (v.w - mean) * rstd * w.w + b.w);
}
__device__ __forceinline__ void shifted4(float4 v, float k, float& s, float& q) {
    float a0 = v.x - k, a1 = v.y - k, a2 = v.z - k, a3 = v.w - k;
    s += (a0 + a1) + (a2 + a3);
    q += (a0 * a0 + a1 * a1) + (a2 * a2 + a3 * a3);
}
extern "C" __global__ void layernorm(const float* x, const float* weight, const float* bias,
                                     float* y, int rows, int cols, float eps) {
    __shared__ float scratch[32];
    __shared__ float4 scratch4[32];
    bool vec = (cols % 4 == 0) && ((size_t)x % 16 == 0) && ((size_t)y % 16 == 0) &&
               ((size_t)weight % 16 == 0) && ((size_t)bias % 16 == 0);
    int n4 = cols / 4;
    const int nt = blockDim.x, tid = threadIdx.x;
    const float4* w4 = reinterpret_cast<const float4*>(weight);
    const float4* b4 = reinterpret_cast<const float4*>(bias);
    if (vec && n4 <= VPT * nt) {
        const float* xr = x + (size_t)blockIdx.x * cols;
        float* yr = y + (size_t)blockIdx.x * cols;
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
    // Long rows: this block takes rows r0 and r0 + 1 (a last odd row alone).
    const int r0 = 2 * blockIdx.x;
    if (r0 >= rows) return;  // the whole block leaves: the barriers below stay whole
    const bool two = r0 + 1 < rows;
    const float* xa = x + (size_t)r0 * cols;
    const float* xb = two ? xa + cols : xa;  // alone: the second row is the first again, not written
    float* ya = y + (size_t)r0 * cols;
    float* yb = ya + cols;
    if (!vec) {
        for (int r = 0; r < (two ? 2 : 1); ++r) {
            const float* xr = r ? xb : xa;
            float* yr = r ? yb : ya;
            float k = xr[0], s = 0.0f, q = 0.0f;
            for (int i = tid; i < cols; i += nt) { float d = xr[i] - k; s += d; q += d * d; }
            s = block_sum(s, scratch);
            q = block_sum(q, scratch);
            float ds = s / cols, mean = k + ds, rstd = rsqrtf(fmaxf(q / cols - ds * ds, 0.0f) + eps);
            for (int i = tid; i < cols; i += nt) yr[i] = (xr[i] - mean) * rstd * weight[i] + bias[i];
        }
        return;
    }
    const float4* xa4 = reinterpret_cast<const float4*>(xa);
    const float4* xb4 = reinterpret_cast<const float4*>(xb);
    const float ka = xa[0], kb = xb[0];
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // (s, q) of row a, then of row b
    int i = tid;
    for (; i + (BATCH - 1) * nt < n4; i += BATCH * nt) {
        float4 a[BATCH], b[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; ++j) { a[j] = xa4[i + j * nt]; b[j] = xb4[i + j * nt]; }
#pragma unroll
        for (int j = 0; j < BATCH; ++j) { shifted4(a[j], ka, acc.x, acc.y); shifted4(b[j], kb, acc.z, acc.w); }
    }
    for (; i < n4; i += nt) { shifted4(xa4[i], ka, acc.x, acc.y); shifted4(xb4[i], kb, acc.z, acc.w); }
    acc = block_sum4(acc, scratch4);
    float dsa = acc.x / cols, dsb = acc.z / cols;
    float meana = ka + dsa, rstda = rsqrtf(fmaxf(acc.y / cols - dsa * dsa, 0.0f) + eps);
    float meanb = kb + dsb, rstdb = rsqrtf(fmaxf(acc.w / cols - dsb * dsb, 0.0f) + eps);
    float4* ya4 = reinterpret_cast<float4*>(ya);
    float4* yb4 = reinterpret_cast<float4*>(yb);
    // The last read of x and the write of y are evict-first (__ldcs / __stcs);
    // weight/bias through the read-only path (__ldg), one load for both rows.
#if REVERSE
    i = tid + (n4 - 1 - tid) / nt * nt;  // this thread's last vector; then down by nt
    for (; i >= (BATCH - 1) * nt; i -= BATCH * nt) {
        float4 a[BATCH], b[BATCH], w[BATCH], c[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; ++j) {
            a[j] = __ldcs(xa4 + i - j * nt); b[j] = __ldcs(xb4 + i - j * nt);
            w[j] = __ldg(w4 + i - j * nt); c[j] = __ldg(b4 + i - j * nt);
        }
#pragma unroll
        for (int j = 0; j < BATCH; ++j) {
            __stcs(ya4 + i - j * nt, norm4(a[j], meana, rstda, w[j], c[j]));
            if (two) __stcs(yb4 + i - j * nt, norm4(b[j], meanb, rstdb, w[j], c[j]));
        }
    }
    for (; i >= 0; i -= nt) {
        float4 w = __ldg(w4 + i), c = __ldg(b4 + i);
        __stcs(ya4 + i, norm4(__ldcs(xa4 + i), meana, rstda, w, c));
        if (two) __stcs(yb4 + i, norm4(__ldcs(xb4 + i), meanb, rstdb, w, c));
    }
#else
    i = tid;
    for (; i + (BATCH - 1) * nt < n4; i += BATCH * nt) {
        float4 a[BATCH], b[BATCH], w[BATCH], c[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; ++j) {
            a[j] = __ldcs(xa4 + i + j * nt); b[j] = __ldcs(xb4 + i + j * nt);
            w[j] = __ldg(w4 + i + j * nt); c[j] = __ldg(b4 + i + j * nt);
        }
#pragma unroll
        for (int j = 0; j < BATCH; ++j) {
            __stcs(ya4 + i + j * nt, norm4(a[j], meana, rstda, w[j], c[j]));
            if (two) __stcs(yb4 + i + j * nt, norm4(b[j], meanb, rstdb, w[j], c[j]));
        }
    }
    for (; i < n4; i += nt) {
        float4 w = __ldg(w4 + i), c = __ldg(b4 + i);
        __stcs(ya4 + i, norm4(__ldcs(xa4 + i), meana, rstda, w, c));
        if (two) __stcs(yb4 + i, norm4(__ldcs(xb4 + i), meanb, rstdb, w, c));
    }
#endif
}
