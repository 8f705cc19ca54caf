// BUG: each warp takes one row only; past 2112 * 8 = 16,896 rows the
// capped grid leaves the remaining rows unwritten.
extern "C" __global__ void spmv(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                const float* __restrict__ vals, const float* __restrict__ x,
                                float* __restrict__ y, int rows, int cols, int nnz) {
    const int lane = threadIdx.x % 32;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int warps = gridDim.x * blockDim.x / 32;
    for (int row = warp; row < rows && row == warp; row += warps) {    // the same row for the whole warp
        const int start = row_ptr[row], end = row_ptr[row + 1];
        float sum = 0.0f;
        for (int j = start + lane; j < end; j += 32) sum += vals[j] * x[col_idx[j]];
        for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (lane == 0) y[row] = sum;
    }
}
