// Reference: basic warp broadcast.
extern "C" __global__ void basic_broadcast(float* output, const float* input, int size) {
    const unsigned FULL_MASK = 0xffffffffu;
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;

    // Only lane 0's value survives the broadcast, so the other lanes may keep 0.
    float broadcast_value = 0.0f;
    if (lane == 0) {
        int block_start = blockIdx.x * blockDim.x;
        for (int i = 0; i < 4 && block_start + i < size; ++i) {
            broadcast_value += input[block_start + i];
        }
    }
    // Every lane of the warp executes the shuffle, even those past the end of
    // the data: the full mask promises that all 32 arrive.
    broadcast_value = __shfl_sync(FULL_MASK, broadcast_value, 0);

    if (global_i < size) {
        output[global_i] = input[global_i] + broadcast_value;
    }
}
