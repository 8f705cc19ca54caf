// BUG: no barrier after staging: a thread reads halo and neighbour cells
// before the threads that load them have written them.
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
            tile[r][c] = (gr >= 0 && gr < H && gc >= 0 && gc < W) ? x[gr * W + gc] : 0.0f;
        }
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
