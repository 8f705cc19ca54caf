// 2-D correlation, "same" size, zero padding:
// y[r][c] = sum over i, j < K of w[i*K + j] * x[r + i - K/2][c + j - K/2], K = 3 or 5.
// Launch: grid (ceil_div(W, 32), ceil_div(H, 64)), block (32, 8): a block owns
// a tile of 32 columns x 64 rows of outputs, a thread 8 of them (8 rows of one
// column, say, or 4 columns x 2 rows).
#define TILE_W 32
#define TILE_H 64
#define MAX_R 2

// FILL-IN: helper functions (a template over K, for example)

// __launch_bounds__(256, 8): at most 32 registers a thread, so 8 blocks fit an SM.
// If your kernel needs more (ptxas then spills them to local memory and the
// kernel slows down several times over), ask for fewer blocks: (256, 6) allows 40.
extern "C" __global__ void __launch_bounds__(256, 8) conv2d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int H, int W, int K) {
    // BEGIN FILL-IN
    // TODO: stage the tile and its halo of K/2 in shared memory (0 outside the
    // image), wait for the block, then compute this thread's 8 outputs.
    // END FILL-IN
}
