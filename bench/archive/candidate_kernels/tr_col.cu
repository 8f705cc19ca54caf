// Naive transpose, one element per thread, threadIdx.x along the output row:
// the writes are coalesced, the reads of a warp are `cols` floats apart.
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
