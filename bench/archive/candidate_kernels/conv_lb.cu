// Candidate for bench/candidates.py: the first conv2d reference with __launch_bounds__(256, MINB).
// Reference: the block stages its 32 x 64 tile and a halo of R = K/2 in
// shared memory (each input is read from memory about once), then each thread
// slides down its column: every input row read from shared memory is added
// into all of the thread's 8 outputs that use it, so a thread makes
// (8 + K - 1) * K shared reads for 8 outputs instead of 8 * K * K.
// K is a template argument: the loops unroll, the sums stay in registers, and
// all of a thread's staging loads are issued before the first is stored.
#ifndef MINB
#define MINB 6
#endif
#define TILE_W 32
#define TILE_H 64
#define MAX_R 2

template <int K>
__device__ void tile_outputs(float (*tile)[TILE_W + 2 * MAX_R], const float* taps,
                             const float* __restrict__ x, float* __restrict__ y, int H, int W) {
    constexpr int R = K / 2, ROWS = TILE_H / 8;      // ROWS: outputs per thread
    constexpr int IN_ROWS = (TILE_H + 2 * R + 7) / 8; // staged rows per thread
    const int row_base = blockIdx.y * TILE_H - R, col_base = blockIdx.x * TILE_W - R;
    float main_part[IN_ROWS], edge_part[IN_ROWS];
#pragma unroll
    for (int q = 0; q < IN_ROWS; ++q) {              // threadIdx.x along a row: coalesced
        const int r = threadIdx.y + 8 * q, gr = row_base + r;
        const int gc = col_base + threadIdx.x, ge = gc + TILE_W;
        const bool row_ok = r < TILE_H + 2 * R && gr >= 0 && gr < H;
        main_part[q] = row_ok && gc >= 0 && gc < W ? x[(size_t)gr * W + gc] : 0.0f;
        edge_part[q] = row_ok && threadIdx.x < 2 * R && ge < W ? x[(size_t)gr * W + ge] : 0.0f;
    }
#pragma unroll
    for (int q = 0; q < IN_ROWS; ++q) {
        const int r = threadIdx.y + 8 * q;
        if (r < TILE_H + 2 * R) {
            tile[r][threadIdx.x] = main_part[q];
            if (threadIdx.x < 2 * R) tile[r][TILE_W + threadIdx.x] = edge_part[q];
        }
    }
    __syncthreads();                                 // halos come from other threads
    float acc[ROWS];
#pragma unroll
    for (int o = 0; o < ROWS; ++o) acc[o] = 0.0f;
#pragma unroll
    for (int rr = 0; rr < ROWS + K - 1; ++rr) {      // input rows this thread's column needs
#pragma unroll
        for (int j = 0; j < K; ++j) {
            const float v = tile[threadIdx.y * ROWS + rr][threadIdx.x + j];
#pragma unroll
            for (int i = 0; i < K; ++i) {            // output row rr - i uses input row rr at tap i
                if (rr - i >= 0 && rr - i < ROWS) acc[rr - i] += taps[i * K + j] * v;
            }
        }
    }
    const int col = blockIdx.x * TILE_W + threadIdx.x;
    const int row0 = blockIdx.y * TILE_H + threadIdx.y * ROWS;
    if (col >= W) return;
#pragma unroll
    for (int o = 0; o < ROWS; ++o)
        if (row0 + o < H) y[(size_t)(row0 + o) * W + col] = acc[o];
}

extern "C" __global__ void __launch_bounds__(256, MINB) conv2d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int H, int W, int K) {
    __shared__ float tile[TILE_H + 2 * MAX_R][TILE_W + 2 * MAX_R];
    __shared__ float taps[(2 * MAX_R + 1) * (2 * MAX_R + 1)];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    if (tid < K * K) taps[tid] = w[tid];             // visible after the barrier in tile_outputs
    if (K == 3) tile_outputs<3>(tile, taps, x, y, H, W);
    else tile_outputs<5>(tile, taps, x, y, H, W);
}
