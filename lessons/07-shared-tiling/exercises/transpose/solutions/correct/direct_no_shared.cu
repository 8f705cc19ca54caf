// Correct but slow: no shared memory, so the writes are uncoalesced.
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
    int c = blockIdx.x * 32 + threadIdx.x;
    for (int r = blockIdx.y * 32 + threadIdx.y; r < min(rows, (int)blockIdx.y * 32 + 32); r += 8)
        if (c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
