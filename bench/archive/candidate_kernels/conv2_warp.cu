// Candidate for bench/candidates.py (drop-in for conv2d's reference.cu, same
// grid and block): conv2_vec.cu's thread layout (4 columns x 2 rows of outputs
// per thread, two LDS.128 per input row, two filter rows of taps live), but
// no block barrier: each warp stages the 8 + 2R input rows its 8 output rows
// need (12 for K = 5; the 4 rows it shares with the next warp are loaded by
// both, the second time mostly from L1) and its own copy of the taps, then
// __syncwarp(). A warp starts computing as soon as its own loads land, so the
// FMAs of one warp overlap the loads of the others in the same block too.
// Blocks inside the image (W % 4 == 0) stage with float4 loads and no bounds
// checks, the others with checked scalar loads.
// -DMINB=n: __launch_bounds__(256, n). -DSTCS=1: streaming stores of y.
#ifndef MINB
#define MINB 6
#endif
#ifndef STCS
#define STCS 0
#endif
#define TILE_W 32
#define TILE_H 64
#define MAX_R 2
#define LD 40                          // shared row stride (floats): rows 16-byte aligned
#define WROWS (8 + 2 * MAX_R)          // rows a warp stages: 12
#define WAREA (WROWS * LD + 5 * TAP_LD) // a warp's floats: rows, then its taps
#define TAP_LD 8                       // a filter row in shared memory: 16-byte aligned

__device__ __forceinline__ void store4(float* p, float a, float b, float c, float d) {
#if STCS
    __stcs(reinterpret_cast<float4*>(p), make_float4(a, b, c, d));
#else
    *reinterpret_cast<float4*>(p) = make_float4(a, b, c, d);
#endif
}

template <int K>
__device__ void warp_outputs(float* area, const float* __restrict__ x, const float* __restrict__ w,
                             float* __restrict__ y, int H, int W, bool vec) {
    constexpr int R = K / 2;
    constexpr int WR = 8 + 2 * R;                // staged rows: area row r = global row grow0 - R + r
    const int lane = threadIdx.x;
    const int row0 = blockIdx.y * TILE_H, col0 = blockIdx.x * TILE_W;
    const int grow0 = row0 + 8 * threadIdx.y;    // the warp's first output row
    float* tile = area;
    float* taps = area + WROWS * LD;
    if (lane < K * K) taps[(lane / K) * TAP_LD + lane % K] = __ldg(w + lane);
    const bool inside = vec && blockIdx.x > 0 && col0 + TILE_W + MAX_R <= W &&
                        grow0 >= R && grow0 + 8 + R <= H;
    if (inside) {
        // float4 items: 8 per row (columns col0 .. col0 + 31); float2 halo
        // items: 2 per row (col0 - 2, col0 - 1 and col0 + 32, col0 + 33).
        constexpr int NV = WR * 8, NH = WR * 2;
        const float* src = x + (size_t)(grow0 - R) * W + col0;
        const int r0 = lane >> 3, c0 = 4 * (lane & 7);
        float4 v[3];
#pragma unroll
        for (int q = 0; q < 3; ++q)
            v[q] = lane + 32 * q < NV ? __ldg(reinterpret_cast<const float4*>(src + (r0 + 4 * q) * W + c0))
                                      : make_float4(0.f, 0.f, 0.f, 0.f);
        const int rh = lane >> 1, sh = (lane & 1) ? TILE_W + 2 : 0;   // shared column of the halo pair
        float2 h2 = make_float2(0.f, 0.f);
        if (lane < NH) h2 = __ldg(reinterpret_cast<const float2*>(src + rh * W + sh - 2));
#pragma unroll
        for (int q = 0; q < 3; ++q) {
            if (lane + 32 * q < NV) {
                float* d = tile + (r0 + 4 * q) * LD + c0 + 2;
                *reinterpret_cast<float2*>(d) = make_float2(v[q].x, v[q].y);
                *reinterpret_cast<float2*>(d + 2) = make_float2(v[q].z, v[q].w);
            }
        }
        if (lane < NH) *reinterpret_cast<float2*>(tile + rh * LD + sh) = h2;
    } else {
        // checked scalar loads: lanes 0-31 the columns, lanes 0-3 the halo columns
        const int gc = col0 + lane;
        const int ge = lane < 2 ? col0 - 2 + lane : col0 + TILE_W - 2 + lane;
        const int se = lane < 2 ? lane : TILE_W + lane;              // shared column
        float main_part[WR], edge_part[WR];
#pragma unroll
        for (int r = 0; r < WR; ++r) {
            const int gr = grow0 - R + r;
            const bool row_ok = gr >= 0 && gr < H;
            main_part[r] = row_ok && gc < W ? x[(size_t)gr * W + gc] : 0.0f;
            edge_part[r] = row_ok && lane < 4 && ge >= 0 && ge < W ? x[(size_t)gr * W + ge] : 0.0f;
        }
#pragma unroll
        for (int r = 0; r < WR; ++r) {
            tile[r * LD + lane + 2] = main_part[r];
            if (lane < 4) tile[r * LD + se] = edge_part[r];
        }
    }
    __syncwarp();                                // the warp's rows and taps, from its own lanes

    const int tx4 = lane & 7;                    // columns 4*tx4 .. 4*tx4 + 3
    const int trow = lane >> 3;                  // rows 2*trow, 2*trow + 1 of the warp's 8
    const float* base = tile + 2 * trow * LD + 4 * tx4;
    float acc[2][4];
#pragma unroll
    for (int o = 0; o < 2; ++o)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[o][c] = 0.0f;
    float tcur[K], tprev[K];
#pragma unroll
    for (int j = 0; j < K; ++j) tcur[j] = 0.0f;
#define TAP(i, j) ((i) == rr ? tcur[j] : tprev[j])
#pragma unroll
    for (int rr = 0; rr < K + 1; ++rr) {         // input rows of the thread's two output rows
        if (rr < K) {
#pragma unroll
            for (int j = 0; j < K; ++j) { tprev[j] = tcur[j]; tcur[j] = taps[rr * TAP_LD + j]; }
        } else {
#pragma unroll
            for (int j = 0; j < K; ++j) tprev[j] = tcur[j];
        }
        const float4 a = *reinterpret_cast<const float4*>(base + rr * LD);
        const float4 b = *reinterpret_cast<const float4*>(base + rr * LD + 4);
        const float v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
        for (int o = 0; o < 2; ++o) {
            const int i = rr - o;                // filter row for output row o
            if (i >= 0 && i < K) {
#pragma unroll
                for (int j = 0; j < K; ++j)
#pragma unroll
                    for (int c = 0; c < 4; ++c)
                        acc[o][c] = fmaf(TAP(i, j), v[c + j + MAX_R - R], acc[o][c]);
            }
        }
    }
#undef TAP
    const int orow = grow0 + 2 * trow, ocol = col0 + 4 * tx4;
    if (vec && grow0 + 8 <= H && col0 + TILE_W <= W) {
#pragma unroll
        for (int o = 0; o < 2; ++o)
            store4(y + (size_t)(orow + o) * W + ocol, acc[o][0], acc[o][1], acc[o][2], acc[o][3]);
    } else {
#pragma unroll
        for (int o = 0; o < 2; ++o)
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (orow + o < H && ocol + c < W) y[(size_t)(orow + o) * W + ocol + c] = acc[o][c];
    }
}

extern "C" __global__ void __launch_bounds__(256, MINB) conv2d(const float* __restrict__ x, const float* __restrict__ w,
                                                               float* __restrict__ y, int H, int W, int K) {
    __shared__ __align__(16) float areas[8 * WAREA];
    float* area = areas + threadIdx.y * WAREA;   // the warp's own rows and taps
    // float4 loads and stores need 16-byte aligned rows
    const bool vec = (W & 3) == 0 &&
                     ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
    if (K == 3) warp_outputs<3>(area, x, w, y, H, W, vec);
    else warp_outputs<5>(area, x, w, y, H, W, vec);
}
