// expect: accepted — CSR-vector SpMV with the lanes' partial sums added by __shfl_down_sync, a warp per row in a grid-stride loop
extern "C" __global__ void spmv(const int* row_ptr, const int* col_idx, const float* vals, const float* x, float* y,
                                int rows, int cols, int nnz) {
    const int lane = threadIdx.x % 32;
    const int first = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int stride = gridDim.x * blockDim.x / 32;
    for (int row = first; row < rows; row += stride) {
        float sum = 0.0f;
        for (int j = row_ptr[row] + lane; j < row_ptr[row + 1]; j += 32) sum += vals[j] * x[col_idx[j]];
        for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (lane == 0) y[row] = sum;
    }
}
