// BUG: only the block's own 32 x 64 inputs are staged; the halo cells stay
// zero, so outputs next to a tile border miss their neighbours' inputs.
#define TILE_W 32
#define TILE_H 64
#define MAX_R 2

extern "C" __global__ void conv2d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int H, int W, int K) {
    __shared__ float tile[TILE_H + 2 * MAX_R][TILE_W + 2 * MAX_R];
    const int R = K / 2;
    const int row_base = blockIdx.y * TILE_H - R, col_base = blockIdx.x * TILE_W - R;
    for (int r = threadIdx.y; r < TILE_H + 2 * R; r += blockDim.y)
        for (int c = threadIdx.x; c < TILE_W + 2 * R; c += blockDim.x) {
            const int gr = row_base + r, gc = col_base + c;
            const bool inside = r >= R && r < TILE_H + R && c >= R && c < TILE_W + R;
            tile[r][c] = (inside && gr < H && gc < W) ? x[gr * W + gc] : 0.0f;
        }
    __syncthreads();
    const int col = blockIdx.x * TILE_W + threadIdx.x;
    if (col >= W) return;
    for (int o = 0; o < 8; ++o) {
        const int lr = threadIdx.y * 8 + o;            // row inside the tile
        const int row = blockIdx.y * TILE_H + lr;
        if (row >= H) break;
        float sum = 0.0f;
        for (int i = 0; i < K; ++i)
            for (int j = 0; j < K; ++j) sum += w[i * K + j] * tile[lr + i][threadIdx.x + j];
        y[row * W + col] = sum;
    }
}
