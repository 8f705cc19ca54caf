// Naive SpMV ("scalar CSR"): one thread per row, a CPU's loop in each. The
// threads of a warp walk 32 different rows, so their loads of vals and
// col_idx are scattered, and a long row keeps its whole warp waiting.
extern "C" __global__ void spmv_naive(const int* row_ptr, const int* col_idx, const float* vals,
                                      const float* x, float* y, int rows, int cols, int nnz) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j) sum += vals[j] * x[col_idx[j]];
    y[row] = sum;
}
