// One thread per row (scalar CSR), grid-stride: correct, but the lanes of a
// warp walk different rows, so the loads are scattered.
extern "C" __global__ void spmv(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                const float* __restrict__ vals, const float* __restrict__ x,
                                float* __restrict__ y, int rows, int cols, int nnz) {
    for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < rows; row += gridDim.x * blockDim.x) {
        float sum = 0.0f;
        for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j) sum += vals[j] * x[col_idx[j]];
        y[row] = sum;
    }
}
