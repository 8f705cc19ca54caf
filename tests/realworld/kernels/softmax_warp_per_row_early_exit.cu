// expect: accepted — one warp does the whole row (llm.c softmax_forward_kernel style), the block's other warps return at once; __shfl_xor_sync, expf
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    if (threadIdx.x >= 32) return;
    const int lane = threadIdx.x;
    const float* in = x + (size_t)blockIdx.x * cols;
    float* out = y + (size_t)blockIdx.x * cols;
    float maxval = -INFINITY;
    for (int c = lane; c < cols; c += 32) maxval = fmaxf(maxval, in[c]);
    for (int o = 16; o > 0; o /= 2) maxval = fmaxf(maxval, __shfl_xor_sync(0xffffffff, maxval, o));
    float sum = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float e = expf(in[c] - maxval);
        out[c] = e;
        sum += e;
    }
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffff, sum, o);
    const float norm = 1.0f / sum;
    for (int c = lane; c < cols; c += 32) out[c] *= norm;
}
