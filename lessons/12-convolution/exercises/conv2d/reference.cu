// Reference: the block stages its 32 x 64 tile and a halo in shared memory
// (each input read from memory about once), then every thread computes 8
// outputs from it with as few instructions as it can. For 5 x 5 the 25 FMAs
// per output are not what costs: a warp of the straightforward version (8
// outputs down one column, scalar shared reads, a bounds check on every
// staged element) issues about 650 instructions, of which only 200 are FMAs,
// and at 4096^2 issuing them alone takes about as long as copying the image.
// This version issues about 370 (200 FMAs) by three changes:
//
// 1. Layout. A thread owns 4 neighbouring columns x 2 rows of outputs: lanes
//    0-7 of a warp cover one 32-column output row (128 bytes), lanes 8-15 the
//    next, so a warp owns 8 rows and the 8 warps the tile's 64. Its 4 outputs
//    of a row need 4 + 2R neighbouring inputs (8 for K = 5): two 16-byte
//    shared reads (float4) per input row instead of one read per float.
//    Each input row it reads is used by both of its output rows (filter row i
//    for the upper, i - 1 for the lower), so it reads K + 1 input rows for
//    2 x 4 outputs, and only two filter rows of taps are in registers at once.
// 2. A fast path. About 95% of the blocks of a large image (W a multiple of 4)
//    have their tile and halo inside the image: they stage with float4 loads
//    and store float4 results with no bounds checks at all. Only the blocks on
//    the border take the checked path, one float at a time, zeros outside.
// 3. __launch_bounds__(256, 8): the compiler must fit 8 blocks of 256 threads
//    on an SM, 32 registers per thread (it fits without spilling), so 64 warps
//    per SM hide the memory latency. The outputs are written with __stcs
//    (streaming stores): y is not read again by this kernel, so its lines need
//    not stay in L2 and take the place of inputs the next blocks will read.
//
// Shared column s of a tile row holds global column col0 - 2 + s (a halo of 2
// on each side for both K; K = 3 loads one column more than it needs on each
// side). The row stride is 40 floats so that every row starts 16-byte aligned.
#define TILE_W 32
#define TILE_H 64
#define MAX_R 2
#define LD 40                          // shared row stride in floats (36 used)
#define TILE_ROWS (TILE_H + 2 * MAX_R) // 68 rows for K = 5
#define TAP_LD 8                       // a filter row in shared memory: 16-byte aligned

template <int K>
__device__ void tile_outputs(float* tile, const float* taps, const float* __restrict__ x,
                             float* __restrict__ y, int H, int W, bool vec) {
    constexpr int R = K / 2;
    constexpr int ROWS_IN = TILE_H + 2 * R;      // tile row r holds global row row0 - R + r
    const int tid = threadIdx.y * 32 + threadIdx.x;
    const int row0 = blockIdx.y * TILE_H, col0 = blockIdx.x * TILE_W;
    const bool inside = vec && blockIdx.x > 0 && col0 + TILE_W + MAX_R <= W &&
                        row0 >= R && row0 + TILE_H + R <= H;
    if (inside) {
        // Fast path, no checks. A row is 8 float4 items (global columns col0 ..
        // col0 + 31) and 2 float2 halo items (col0 - 2, col0 - 1 and col0 + 32,
        // col0 + 33). Thread tid loads the float4 item of rows tid / 8 and
        // tid / 8 + 32, then one more: a float4 of rows 64.. (the first
        // threads) or a halo float2 (the next ones). All loads are issued
        // before the first store, so three are in flight per thread.
        constexpr int NV = ROWS_IN * 8, NH = ROWS_IN * 2;
        const float* src = x + (size_t)(row0 - R) * W + col0;
        float4 v0, v1, v2 = make_float4(0.f, 0.f, 0.f, 0.f);
        float2 h2 = make_float2(0.f, 0.f);
        const int r0 = tid >> 3, c0 = 4 * (tid & 7);
        v0 = __ldg(reinterpret_cast<const float4*>(src + r0 * W + c0));
        v1 = __ldg(reinterpret_cast<const float4*>(src + (r0 + 32) * W + c0));
        const int k2 = tid + 512 - NV;           // < 0: a float4 item of the last rows; else a halo item
        const int r2 = k2 < 0 ? r0 + 64 : k2 >> 1;
        const int s2 = k2 < 0 ? c0 + 2 : ((k2 & 1) ? TILE_W + 2 : 0);  // its shared column
        if (k2 < 0) v2 = __ldg(reinterpret_cast<const float4*>(src + r2 * W + c0));
        else if (k2 < NH) h2 = __ldg(reinterpret_cast<const float2*>(src + r2 * W + s2 - 2));
        // Shared column c0 + 2 is only 8-byte aligned: a float4 goes in as two float2.
        float* d0 = tile + r0 * LD + c0 + 2;
        *reinterpret_cast<float2*>(d0) = make_float2(v0.x, v0.y);
        *reinterpret_cast<float2*>(d0 + 2) = make_float2(v0.z, v0.w);
        *reinterpret_cast<float2*>(d0 + 32 * LD) = make_float2(v1.x, v1.y);
        *reinterpret_cast<float2*>(d0 + 32 * LD + 2) = make_float2(v1.z, v1.w);
        if (k2 < 0) {
            *reinterpret_cast<float2*>(tile + r2 * LD + s2) = make_float2(v2.x, v2.y);
            *reinterpret_cast<float2*>(tile + r2 * LD + s2 + 2) = make_float2(v2.z, v2.w);
        } else if (k2 < NH) {
            *reinterpret_cast<float2*>(tile + r2 * LD + s2) = h2;
        }
    } else {
        // Border blocks: one float per load, 0 outside the image, all loads
        // before the stores. Lanes 0-31 load the tile's 32 columns; lanes 0-3
        // also load the 4 halo columns (col0 - 2, col0 - 1, col0 + 32, col0 + 33).
        constexpr int IN_ROWS = (ROWS_IN + 7) / 8;  // rows per thread (8 warps)
        const int gc = col0 + threadIdx.x;
        const int ge = threadIdx.x < 2 ? col0 - 2 + threadIdx.x : col0 + TILE_W - 2 + threadIdx.x;
        const int se = threadIdx.x < 2 ? threadIdx.x : TILE_W + threadIdx.x;  // its shared column
        float main_part[IN_ROWS], edge_part[IN_ROWS];
#pragma unroll
        for (int q = 0; q < IN_ROWS; ++q) {
            const int r = threadIdx.y + 8 * q, gr = row0 - R + r;
            const bool row_ok = r < ROWS_IN && gr >= 0 && gr < H;
            main_part[q] = row_ok && gc < W ? x[(size_t)gr * W + gc] : 0.0f;
            edge_part[q] = row_ok && threadIdx.x < 4 && ge >= 0 && ge < W ? x[(size_t)gr * W + ge] : 0.0f;
        }
#pragma unroll
        for (int q = 0; q < IN_ROWS; ++q) {
            const int r = threadIdx.y + 8 * q;
            if (r < ROWS_IN) {
                tile[r * LD + threadIdx.x + 2] = main_part[q];
                if (threadIdx.x < 4) tile[r * LD + se] = edge_part[q];
            }
        }
    }
    __syncthreads();                             // halos and taps come from other threads

    const int tx4 = threadIdx.x & 7;             // output columns 4*tx4 .. 4*tx4 + 3 of the tile
    const int trow = threadIdx.y * 4 + (threadIdx.x >> 3);  // output rows 2*trow, 2*trow + 1
    const float* base = tile + 2 * trow * LD + 4 * tx4;     // shared columns 4*tx4 .. 4*tx4 + 7
    float acc[2][4];
#pragma unroll
    for (int o = 0; o < 2; ++o)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[o][c] = 0.0f;
    // Input row rr feeds output row 0 with filter row rr and output row 1 with
    // filter row rr - 1: keep those two filter rows (tcur, tprev) in registers.
    float tcur[K], tprev[K];
#pragma unroll
    for (int j = 0; j < K; ++j) tcur[j] = 0.0f;
#pragma unroll
    for (int rr = 0; rr < K + 1; ++rr) {         // the K + 1 input rows of the two output rows
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
            const int i = rr - o;                // the filter row for output row o
            if (i >= 0 && i < K) {
#pragma unroll
                for (int j = 0; j < K; ++j)
#pragma unroll
                    for (int c = 0; c < 4; ++c)  // column c + j of the window, shifted for K = 3
                        acc[o][c] = fmaf(i == rr ? tcur[j] : tprev[j], v[c + j + MAX_R - R], acc[o][c]);
            }
        }
    }
    const int orow = row0 + 2 * trow, ocol = col0 + 4 * tx4;
    if (vec && row0 + TILE_H <= H && col0 + TILE_W <= W) {   // a full tile: float4 stores, no checks
#pragma unroll
        for (int o = 0; o < 2; ++o)
            __stcs(reinterpret_cast<float4*>(y + (size_t)(orow + o) * W + ocol),
                   make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]));
    } else {
#pragma unroll
        for (int o = 0; o < 2; ++o)
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (orow + o < H && ocol + c < W) y[(size_t)(orow + o) * W + ocol + c] = acc[o][c];
    }
}

extern "C" __global__ void __launch_bounds__(256, 8) conv2d(const float* __restrict__ x, const float* __restrict__ w,
                                                            float* __restrict__ y, int H, int W, int K) {
    __shared__ __align__(16) float tile[TILE_ROWS * LD];
    __shared__ __align__(16) float taps[(2 * MAX_R + 1) * TAP_LD];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    if (tid < K * K) taps[(tid / K) * TAP_LD + tid % K] = w[tid];  // visible after the barrier
    // float4 loads and stores need every row 16-byte aligned: W a multiple of 4
    // and both buffers 16-byte aligned (cudaMalloc gives 256).
    const bool vec = (W & 3) == 0 &&
                     ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
    if (K == 3) tile_outputs<3>(tile, taps, x, y, H, W, vec);
    else tile_outputs<5>(tile, taps, x, y, H, W, vec);
}
