// BUG: no __syncthreads() between filling the tile and reading it: a warp
// reads tile elements that other warps may not have written yet.
#define TILE 32
#define ROWS_PER_STEP 8

extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];   // +1: column reads are conflict-free
    const int tx = threadIdx.x, ty = threadIdx.y;

    // (1) read: threadIdx.x runs along a row of in
    int c = blockIdx.x * TILE + tx;
    int r = blockIdx.y * TILE + ty;
    for (int j = 0; j < TILE; j += ROWS_PER_STEP)
        if (c < cols && r + j < rows) tile[ty + j][tx] = in[(size_t)(r + j) * cols + c];


    // (3) write: threadIdx.x runs along a row of out = a column of in
    c = blockIdx.y * TILE + tx;   // column of out = row of in
    r = blockIdx.x * TILE + ty;   // row of out = column of in
    for (int j = 0; j < TILE; j += ROWS_PER_STEP)
        if (c < rows && r + j < cols) out[(size_t)(r + j) * rows + c] = tile[tx][ty + j];
}
