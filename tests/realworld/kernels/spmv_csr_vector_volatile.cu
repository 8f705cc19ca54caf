// expect: accepted — Bell & Garland's CSR-vector SpMV in legacy warp-synchronous style: 32 lanes per row, partial sums in volatile shared memory halved by an `if (lane < s)` chain with no __syncwarp, inside a grid-stride loop over rows (the warp reconverges after the chain before its lanes start the next row)
#define WARPS_PER_BLOCK 8
extern "C" __global__ void spmv(const int* row_ptr, const int* col_idx, const float* vals, const float* x, float* y,
                                int rows, int cols, int nnz) {
    __shared__ volatile float partial[WARPS_PER_BLOCK * 32];
    const int t = threadIdx.x;
    const int lane = t & 31;
    const int warps = gridDim.x * WARPS_PER_BLOCK;
    for (int row = blockIdx.x * WARPS_PER_BLOCK + t / 32; row < rows; row += warps) {
        const int begin = row_ptr[row], end = row_ptr[row + 1];
        partial[t] = 0.0f;
        for (int j = begin + lane; j < end; j += 32) partial[t] += vals[j] * x[col_idx[j]];
        if (lane < 16) partial[t] += partial[t + 16];
        if (lane < 8) partial[t] += partial[t + 8];
        if (lane < 4) partial[t] += partial[t + 4];
        if (lane < 2) partial[t] += partial[t + 2];
        if (lane < 1) partial[t] += partial[t + 1];
        if (lane == 0) y[row] = partial[t];
    }
}
