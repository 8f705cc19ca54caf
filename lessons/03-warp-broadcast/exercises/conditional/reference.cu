// Reference: conditional warp broadcast.
extern "C" __global__ void conditional_broadcast(float* output, const float* input, int size) {
    const unsigned FULL_MASK = 0xffffffffu;
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;

    float decision_value = 0.0f;
    if (lane == 0) {
        int block_start = blockIdx.x * blockDim.x;
        int count = min(8, size - block_start);   // >= 1: this block exists
        // Start from real data, not 0: all eight may be negative.
        decision_value = input[block_start];
        for (int i = 1; i < count; ++i) {
            decision_value = fmaxf(decision_value, input[block_start + i]);
        }
    }
    decision_value = __shfl_sync(FULL_MASK, decision_value, 0);

    if (global_i < size) {
        float x = input[global_i];
        float threshold = decision_value / 2.0f;
        output[global_i] = (x >= threshold) ? x * 2.0f : x / 2.0f;
    }
}
