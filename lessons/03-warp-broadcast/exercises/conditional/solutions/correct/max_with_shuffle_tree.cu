// Correct: lanes 0..7 each hold one candidate and a 3-step xor-shuffle tree
// finds their maximum; lane 0's copy is then broadcast to the warp.
extern "C" __global__ void conditional_broadcast(float* output, const float* input, int size) {
    const unsigned FULL_MASK = 0xffffffffu;
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float x = global_i < size ? input[global_i] : 0.0f;

    // Lanes outside the first 8 (or past the end) offer the lowest float, which never wins.
    float candidate = (lane < 8 && global_i < size) ? x : -3.402823466e38f;
    for (int offset = 4; offset > 0; offset >>= 1) {
        candidate = fmaxf(candidate, __shfl_xor_sync(FULL_MASK, candidate, offset));
    }
    float maximum = __shfl_sync(FULL_MASK, candidate, 0);

    if (global_i < size) {
        output[global_i] = (x >= maximum * 0.5f) ? 2.0f * x : 0.5f * x;
    }
}
