// Tiled without padding: coalesced both ways, but a column of the 32x32 tile
// lies in one bank, so each warp's tile read is a 32-way bank conflict.
#define TILE 32
#define ROWS_PER_STEP 8

extern "C" __global__ void transpose_unpadded(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE];   // tile[tx][k] for tx = 0..31: all in bank k
    const int tx = threadIdx.x, ty = threadIdx.y;

    // (1) read: threadIdx.x runs along a row of in
    int c = blockIdx.x * TILE + tx;
    int r = blockIdx.y * TILE + ty;
    for (int j = 0; j < TILE; j += ROWS_PER_STEP)
        if (c < cols && r + j < rows) tile[ty + j][tx] = in[(size_t)(r + j) * cols + c];

    __syncthreads();   // (2) every element of the tile is written before any is read

    // (3) write: threadIdx.x runs along a row of out = a column of in
    c = blockIdx.y * TILE + tx;   // column of out = row of in
    r = blockIdx.x * TILE + ty;   // row of out = column of in
    for (int j = 0; j < TILE; j += ROWS_PER_STEP)
        if (c < rows && r + j < cols) out[(size_t)(r + j) * rows + c] = tile[tx][ty + j];
}
