// Candidate for bench/candidates.py (drop-in for conv2d's reference.cu, same
// grid and block): conv2_vec.cu's compute (4 columns x 2 rows of outputs per
// thread, two filter rows of taps live), staged with cp.async instead: when
// W % 4 == 0 every block, edge blocks too, copies its rows as 16-byte chunks
// (global columns col0 - 4 .. col0 + 35, 10 per row; a chunk outside the
// image is zero-filled by the copy itself), with no registers in between and
// no stores: 2 or 3 LDGSTS per thread. Shared column s holds global column
// col0 - 4 + s, so a thread's window (columns 4*tx4 - 2 .. 4*tx4 + 5) is read
// as LDS.64 + LDS.128 + LDS.64. Other widths take a checked scalar path.
// cp.async is inline PTX: used when compiled for sm_90a (the judge's and
// bench/candidates.py's target on an H100); elsewhere (the CPU emulator) the
// same chunk is copied at once.
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
#define TILE_ROWS (TILE_H + 2 * MAX_R) // 68
#define TAP_LD 8                       // a filter row in shared memory: 16-byte aligned

__device__ __forceinline__ void store4(float* p, float a, float b, float c, float d) {
#if STCS
    __stcs(reinterpret_cast<float4*>(p), make_float4(a, b, c, d));
#else
    *reinterpret_cast<float4*>(p) = make_float4(a, b, c, d);
#endif
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int src_bytes) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
#else
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int src_bytes) {
    *reinterpret_cast<float4*>(smem) = src_bytes ? *reinterpret_cast<const float4*>(gmem) : make_float4(0.f, 0.f, 0.f, 0.f);
}
__device__ __forceinline__ void cp_async_wait_all() {}
#endif

template <int K>
__device__ void tile_outputs(float* tile, const float* taps, const float* __restrict__ x,
                             float* __restrict__ y, int H, int W, bool vec) {
    constexpr int R = K / 2;
    constexpr int ROWS_IN = TILE_H + 2 * R;      // staged rows: tile row r = global row row0 - R + r
    const int tid = threadIdx.y * 32 + threadIdx.x;
    const int row0 = blockIdx.y * TILE_H, col0 = blockIdx.x * TILE_W;
    if (vec) {
        // 16-byte chunks: 8 per row inside the tile (global columns col0 ..
        // col0 + 31, shared columns 4 .. 35), then 2 halo chunks per row
        // (col0 - 4 .. col0 - 1 and col0 + 32 .. col0 + 35, shared 0 and 36)
        constexpr int NV = ROWS_IN * 8, NH = ROWS_IN * 2;
        const int gr0 = row0 - R;
        const int r0 = tid >> 3, c0 = 4 * (tid & 7);
#pragma unroll
        for (int q = 0; q < 2; ++q) {            // rows r0 and r0 + 32
            const int r = r0 + 32 * q, gr = gr0 + r;
            const bool ok = gr >= 0 && gr < H && col0 + c0 < W;   // W % 4 == 0: all 4 or none
            cp_async16(tile + r * LD + c0 + 4, ok ? x + (size_t)gr * W + col0 + c0 : x, ok ? 16 : 0);
        }
        const int k2 = tid + 512 - NV;           // < 0: a chunk of rows 64..; else a halo chunk
        if (k2 < NH) {
            const int r = k2 < 0 ? r0 + 64 : k2 >> 1, gr = gr0 + r;
            const int gc = k2 < 0 ? col0 + c0 : ((k2 & 1) ? col0 + TILE_W : col0 - 4);
            const bool ok = gr >= 0 && gr < H && gc >= 0 && gc < W;
            cp_async16(tile + r * LD + gc - col0 + 4, ok ? x + (size_t)gr * W + gc : x, ok ? 16 : 0);
        }
        cp_async_wait_all();
    } else {
        // checked scalar staging as in the reference (all loads, then all
        // stores): lanes 0-31 the tile's columns, lanes 0-3 the 4 halo columns
        constexpr int IN_ROWS = (ROWS_IN + 7) / 8;
        const int gc = col0 + threadIdx.x;
        const int ge = threadIdx.x < 2 ? col0 - 2 + threadIdx.x : col0 + TILE_W - 2 + threadIdx.x;
        const int se = threadIdx.x < 2 ? threadIdx.x + 2 : TILE_W + 2 + threadIdx.x;  // shared column
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
                tile[r * LD + threadIdx.x + 4] = main_part[q];
                if (threadIdx.x < 4) tile[r * LD + se] = edge_part[q];
            }
        }
    }
    __syncthreads();                             // halos come from other threads

    const int tx4 = threadIdx.x & 7;             // columns 4*tx4 .. 4*tx4 + 3
    const int trow = threadIdx.y * 4 + (threadIdx.x >> 3);  // rows 2*trow, 2*trow + 1
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
        const float2 a = *reinterpret_cast<const float2*>(base + rr * LD + 2);
        const float4 b = *reinterpret_cast<const float4*>(base + rr * LD + 4);
        const float2 d = *reinterpret_cast<const float2*>(base + rr * LD + 8);
        const float v[8] = {a.x, a.y, b.x, b.y, b.z, b.w, d.x, d.y};   // global columns 4*tx4 - 2 ..
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
    const int orow = row0 + 2 * trow, ocol = col0 + 4 * tx4;
    if (vec && row0 + TILE_H <= H && col0 + TILE_W <= W) {
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
    __shared__ __align__(16) float tile[TILE_ROWS * LD];
    __shared__ __align__(16) float taps[(2 * MAX_R + 1) * TAP_LD];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    if (tid < K * K) taps[(tid / K) * TAP_LD + tid % K] = w[tid];  // visible after the barrier
    // float4 loads and stores need 16-byte aligned rows
    const bool vec = (W & 3) == 0 &&
                     ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
    if (K == 3) tile_outputs<3>(tile, taps, x, y, H, W, vec);
    else tile_outputs<5>(tile, taps, x, y, H, W, vec);
}
