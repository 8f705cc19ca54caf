// BUG: blocks whose tile sticks out of the matrix return at once, so when
// rows or cols is not a multiple of 32 the edge of out is never written.
#define TILE 32

extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    if ((blockIdx.x + 1) * TILE > cols || (blockIdx.y + 1) * TILE > rows) return;
    const int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * TILE + tx, r = blockIdx.y * TILE + ty;
    for (int j = 0; j < TILE; j += 8) tile[ty + j][tx] = in[(size_t)(r + j) * cols + c];
    __syncthreads();
    c = blockIdx.y * TILE + tx;
    r = blockIdx.x * TILE + ty;
    for (int j = 0; j < TILE; j += 8) out[(size_t)(r + j) * rows + c] = tile[tx][ty + j];
}
