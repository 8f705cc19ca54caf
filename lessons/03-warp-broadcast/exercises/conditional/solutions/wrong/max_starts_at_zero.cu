// Bug: the running maximum starts at 0, so a block whose first 8 elements are
// all negative gets threshold 0 instead of (its maximum) / 2.
extern "C" __global__ void conditional_broadcast(float* output, const float* input, int size) {
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float decision_value = 0.0f;
    if (lane == 0) {
        int block_start = blockIdx.x * blockDim.x;
        for (int i = 0; i < 8 && block_start + i < size; ++i) {
            decision_value = fmaxf(decision_value, input[block_start + i]);
        }
    }
    decision_value = __shfl_sync(0xffffffffu, decision_value, 0);
    if (global_i < size) {
        float x = input[global_i];
        output[global_i] = (x >= decision_value / 2.0f) ? x * 2.0f : x / 2.0f;
    }
}
