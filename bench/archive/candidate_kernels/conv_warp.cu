// Variant B2: each warp stages its own rows (8 outputs per lane need 8 + K - 1
// input rows) in its own slice of shared memory: only __syncwarp, no block
// barrier, so the warps of a block load and compute out of step.
#define TILE_W 32
#define TILE_H 64
#define MAX_R 2
#ifndef MINB
#define MINB 5
#endif
#define WROWS (8 + 2 * MAX_R)

template <int K>
__device__ void warp_outputs(float (*rows)[TILE_W + 2 * MAX_R], const float* taps,
                             const float* __restrict__ x, float* __restrict__ y, int H, int W) {
    constexpr int R = K / 2, ROWS = 8, IN = ROWS + 2 * R;
    const int row_base = blockIdx.y * TILE_H + threadIdx.y * ROWS - R, col_base = blockIdx.x * TILE_W - R;
    const int gc = col_base + threadIdx.x, ge = gc + TILE_W;
    float main_part[IN], edge_part[IN];
#pragma unroll
    for (int q = 0; q < IN; ++q) {
        const int gr = row_base + q;
        const bool row_ok = gr >= 0 && gr < H;
        main_part[q] = row_ok && gc >= 0 && gc < W ? x[(size_t)gr * W + gc] : 0.0f;
        edge_part[q] = row_ok && threadIdx.x < 2 * R && ge < W ? x[(size_t)gr * W + ge] : 0.0f;
    }
#pragma unroll
    for (int q = 0; q < IN; ++q) {
        rows[q][threadIdx.x] = main_part[q];
        if (threadIdx.x < 2 * R) rows[q][TILE_W + threadIdx.x] = edge_part[q];
    }
    __syncwarp();
    float acc[ROWS];
#pragma unroll
    for (int o = 0; o < ROWS; ++o) acc[o] = 0.0f;
#pragma unroll
    for (int rr = 0; rr < IN; ++rr) {
#pragma unroll
        for (int j = 0; j < K; ++j) {
            const float v = rows[rr][threadIdx.x + j];
#pragma unroll
            for (int i = 0; i < K; ++i)
                if (rr - i >= 0 && rr - i < ROWS) acc[rr - i] += taps[i * K + j] * v;
        }
    }
    const int col = blockIdx.x * TILE_W + threadIdx.x;
    const int row0 = row_base + R;
    if (col >= W) return;
#pragma unroll
    for (int o = 0; o < ROWS; ++o)
        if (row0 + o < H) y[(size_t)(row0 + o) * W + col] = acc[o];
}

extern "C" __global__ void __launch_bounds__(256, MINB) conv2d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int H, int W, int K) {
    __shared__ float rows[8][WROWS][TILE_W + 2 * MAX_R];
    __shared__ float taps[8][(2 * MAX_R + 1) * (2 * MAX_R + 1)];   // a copy per warp
    if ((int)threadIdx.x < K * K) taps[threadIdx.y][threadIdx.x] = w[threadIdx.x];   // visible after __syncwarp
    if (K == 3) warp_outputs<3>(rows[threadIdx.y], taps[threadIdx.y], x, y, H, W);
    else warp_outputs<5>(rows[threadIdx.y], taps[threadIdx.y], x, y, H, W);
}
