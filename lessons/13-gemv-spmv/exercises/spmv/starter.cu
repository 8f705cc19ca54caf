// y = A x for a CSR matrix: row r's nonzeros are vals[j] in column col_idx[j]
// for row_ptr[r] <= j < row_ptr[r + 1]. Rows may be empty; y is not zeroed.
// Launch: min(ceil_div(rows, 8), 2112) blocks of 256 threads: a warp per
// row, and past 16,896 rows each warp walks several rows, grid-stride.
extern "C" __global__ void spmv(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                const float* __restrict__ vals, const float* __restrict__ x,
                                float* __restrict__ y, int rows, int cols, int nnz) {
    // BEGIN FILL-IN
    // const int lane = threadIdx.x % 32;
    // const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;   (this warp's number)
    // const int warps = gridDim.x * blockDim.x / 32;                    (warps in the grid)
    // TODO: for each row of this warp, let the lanes sum vals[j] * x[col_idx[j]]
    // over the row, add the lanes' sums together and write y[row].
    // END FILL-IN
}
