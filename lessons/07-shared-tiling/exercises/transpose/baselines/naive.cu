// Naive transpose: no shared memory. The reads are coalesced; the writes of a
// warp are `rows` floats apart, one 32-byte sector each.
extern "C" __global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
    int c = blockIdx.x * 32 + threadIdx.x;
    int r = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (c < cols && r + j < rows) out[(size_t)c * rows + r + j] = in[(size_t)(r + j) * cols + c];
}
