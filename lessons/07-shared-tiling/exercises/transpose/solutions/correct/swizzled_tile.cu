// Correct: no padding; element (r, c) of the tile is stored at column c ^ r.
// A row of the tile is still 32 distinct banks, and so is a column.
#define TILE 32

extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * TILE + tx, r = blockIdx.y * TILE + ty;
    for (int j = 0; j < TILE; j += blockDim.y) {
        int k = ty + j;
        if (c < cols && r + j < rows) tile[k][tx ^ k] = in[(size_t)(r + j) * cols + c];
    }
    __syncthreads();
    c = blockIdx.y * TILE + tx;
    r = blockIdx.x * TILE + ty;
    for (int j = 0; j < TILE; j += blockDim.y) {
        int k = ty + j;
        if (c < rows && r + j < cols) out[(size_t)(r + j) * rows + c] = tile[tx][k ^ tx];
    }
}
