// Naive baseline: one thread per row walks it from left to right. Neighbouring
// threads read addresses a whole row apart.
extern "C" __global__ void scan_rows_naive(const int* in, int* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    int sum = 0;
    for (int c = 0; c < cols; ++c) {
        sum += in[(long long)r * cols + c];
        out[(long long)r * cols + c] = sum;
    }
}
