// Bug: the maximum is taken over all 32 elements of the block instead of the
// first 8. The seed data cannot tell (it repeats every 8), random data can.
extern "C" __global__ void conditional_broadcast(float* output, const float* input, int size) {
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float decision_value = 0.0f;
    if (lane == 0) {
        int block_start = blockIdx.x * blockDim.x;
        int count = min(32, size - block_start);
        decision_value = input[block_start];
        for (int i = 1; i < count; ++i) decision_value = fmaxf(decision_value, input[block_start + i]);
    }
    decision_value = __shfl_sync(0xffffffffu, decision_value, 0);
    if (global_i < size) {
        float x = input[global_i];
        output[global_i] = (x >= decision_value / 2.0f) ? x * 2.0f : x / 2.0f;
    }
}
