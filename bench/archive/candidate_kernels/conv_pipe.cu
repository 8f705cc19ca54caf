// Variant C: no shared memory. A warp owns 128 columns (4 per lane) and each
// thread slides down ROWS output rows; a lane's neighbours' columns come by
// shuffles, lanes 0 and 31 load the 2 columns beyond the warp. Each input row
// is loaded once per thread and added into the K outputs that use it.
#ifndef MINB
#define MINB 6
#endif
#ifndef ROWS
#define ROWS 8
#endif

#ifndef P
#define P 4
#endif

template <int R, bool VEC>
__device__ __forceinline__ void load_row(const float* __restrict__ x, int H, int W, int gr, int col0, int lane,
                                         float4& v, float& e0, float& e1) {
    const bool row_ok = gr >= 0 && gr < H;
    const float* xr = x + (size_t)(row_ok ? gr : 0) * W;
    v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (VEC) {
        if (row_ok && col0 < W) v = __ldg(reinterpret_cast<const float4*>(xr + col0));
    } else if (row_ok) {
        if (col0 < W) v.x = __ldg(xr + col0);
        if (col0 + 1 < W) v.y = __ldg(xr + col0 + 1);
        if (col0 + 2 < W) v.z = __ldg(xr + col0 + 2);
        if (col0 + 3 < W) v.w = __ldg(xr + col0 + 3);
    }
    // columns beyond the warp: lane 0 the R before it, lane 31 the R after it
    e0 = 0.f;
    e1 = 0.f;
    if (row_ok && lane == 0) {
        if (col0 - 2 >= 0 && R == 2) e0 = __ldg(xr + col0 - 2);
        if (col0 - 1 >= 0) e1 = __ldg(xr + col0 - 1);
    }
    if (row_ok && lane == 31) {
        if (col0 + 4 < W) e0 = __ldg(xr + col0 + 4);
        if (col0 + 5 < W && R == 2) e1 = __ldg(xr + col0 + 5);
    }
}

template <int K, bool VEC>
__device__ void strip(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int H, int W) {
    constexpr int R = K / 2;
    const int lane = threadIdx.x;
    const int col0 = blockIdx.x * 128 + 4 * lane;
    const int row0 = (blockIdx.y * blockDim.y + threadIdx.y) * ROWS;
    float taps[K * K];
#pragma unroll
    for (int t = 0; t < K * K; ++t) taps[t] = __ldg(w + t);
    float acc[ROWS][4];
#pragma unroll
    for (int o = 0; o < ROWS; ++o)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[o][c] = 0.0f;
    constexpr int IN = ROWS + 2 * R;
    float4 ring[P];
    float ring_e0[P], ring_e1[P];
#pragma unroll
    for (int p = 0; p < P; ++p) if (p < IN) load_row<R, VEC>(x, H, W, row0 - R + p, col0, lane, ring[p], ring_e0[p], ring_e1[p]);
#pragma unroll
    for (int rr = 0; rr < IN; ++rr) {
        const float4 v = ring[rr % P];
        const float e0 = ring_e0[rr % P], e1 = ring_e1[rr % P];
        if (rr + P < IN) load_row<R, VEC>(x, H, W, row0 - R + rr + P, col0, lane, ring[rr % P], ring_e0[rr % P], ring_e1[rr % P]);
        const float lz = __shfl_up_sync(0xffffffff, v.z, 1), lw = __shfl_up_sync(0xffffffff, v.w, 1);
        const float rx = __shfl_down_sync(0xffffffff, v.x, 1), ry = __shfl_down_sync(0xffffffff, v.y, 1);
        float a[4 + 2 * R];
        // a[k] = column col0 - R + k
        if (R == 2) {
            a[0] = lane == 0 ? e0 : lz;
            a[1] = lane == 0 ? e1 : lw;
        } else {
            a[0] = lane == 0 ? e1 : lw;
        }
        a[R] = v.x; a[R + 1] = v.y; a[R + 2] = v.z; a[R + 3] = v.w;
        if (R == 2) {
            a[6] = lane == 31 ? e0 : rx;
            a[7] = lane == 31 ? e1 : ry;
        } else {
            a[4 + R] = lane == 31 ? e0 : rx;
        }
#pragma unroll
        for (int i = 0; i < K; ++i) {
            const int o = rr - i;                       // output row o uses input row rr at tap row i
            if (o >= 0 && o < ROWS) {
#pragma unroll
                for (int j = 0; j < K; ++j)
#pragma unroll
                    for (int c = 0; c < 4; ++c) acc[o][c] += taps[i * K + j] * a[c + j];
            }
        }
        const int done = rr - 2 * R;                    // this output row has all its inputs
        if (done >= 0) {
            const int gy = row0 + done;
            if (gy < H) {
                float* yr = y + (size_t)gy * W;
                if (VEC) {
                    if (col0 < W) *reinterpret_cast<float4*>(yr + col0) = make_float4(acc[done][0], acc[done][1], acc[done][2], acc[done][3]);
                } else {
#pragma unroll
                    for (int c = 0; c < 4; ++c)
                        if (col0 + c < W) yr[col0 + c] = acc[done][c];
                }
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(128, MINB) conv2d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int H, int W, int K) {
    const bool vec = (W & 3) == 0;
    if (K == 3) { if (vec) strip<3, true>(x, w, y, H, W); else strip<3, false>(x, w, y, H, W); }
    else { if (vec) strip<5, true>(x, w, y, H, W); else strip<5, false>(x, w, y, H, W); }
}
