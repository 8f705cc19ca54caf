// Correct: the padded tile, with the 4 steps of each loop written out.
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[32][33];
    int bx = blockIdx.x * 32, by = blockIdx.y * 32;
    int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
        int r = by + ty + 8 * s, c = bx + tx;
        if (r < rows && c < cols) tile[ty + 8 * s][tx] = in[(size_t)r * cols + c];
    }
    __syncthreads();
#pragma unroll
    for (int s = 0; s < 4; ++s) {
        int r = bx + ty + 8 * s, c = by + tx;   // r: row of out, c: column of out
        if (r < cols && c < rows) out[(size_t)r * rows + c] = tile[tx][ty + 8 * s];
    }
}
