// Reference: "vector CSR" with a group of G lanes per row, G (2 to 32) chosen
// from the average row length nnz / rows, so short rows do not leave most of
// a warp idle; the groups walk the rows grid-stride. A group reads its row's
// vals and col_idx at consecutive addresses; x[col] is a gather served mostly
// by the L2 cache. The next row's bounds are read before this row is summed.
extern "C" __global__ void spmv(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                const float* __restrict__ vals, const float* __restrict__ x,
                                float* __restrict__ y, int rows, int cols, int nnz) {
    const int lane = threadIdx.x % 32;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int warps = gridDim.x * blockDim.x / 32;
    const int average = nnz / max(rows, 1);
    const int G = average >= 24 ? 32 : average >= 12 ? 16 : average >= 6 ? 8 : average >= 3 ? 4 : 2;
    const int groups = warps * (32 / G);             // row groups in the grid
    const int sub = lane % G;
    int row = warp * (32 / G) + lane / G;
    int start = 0, end = 0;
    if (row < rows) { start = __ldg(row_ptr + row); end = __ldg(row_ptr + row + 1); }
    // the warp loops while any of its groups has a row: the shuffles need every lane
    for (int base = warp * (32 / G); base < rows; base += groups) {
        const int next = row + groups;
        int next_start = 0, next_end = 0;
        if (next < rows) { next_start = __ldg(row_ptr + next); next_end = __ldg(row_ptr + next + 1); }
        float sum = 0.0f;
#pragma unroll 4
        for (int j = start + sub; j < end; j += G) sum += __ldg(vals + j) * __ldg(x + __ldg(col_idx + j));
        for (int offset = G / 2; offset > 0; offset >>= 1)   // xor stays inside the group
            sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        if (row < rows && sub == 0) y[row] = sum;    // empty rows get their 0 too
        row = next; start = next_start; end = next_end;
    }
}
