// Reference: broadcast (lane 0 -> all) combined with shuffle-down (lane i+1 -> lane i).
extern "C" __global__ void broadcast_shuffle_coordination(float* output, const float* input, int size) {
    const unsigned FULL_MASK = 0xffffffffu;
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;

    float scale_factor = 0.0f;
    if (lane == 0) {
        int block_start = blockIdx.x * blockDim.x;
        float sum = 0.0f;
        for (int i = 0; i < 4 && block_start + i < size; ++i) sum += input[block_start + i];
        scale_factor = sum / 4.0f;
    }
    scale_factor = __shfl_sync(FULL_MASK, scale_factor, 0);

    // Lanes past the end still take part in the shuffle, offering 0.
    float current = (global_i < size) ? input[global_i] : 0.0f;
    float next = __shfl_down_sync(FULL_MASK, current, 1);

    if (global_i < size) {
        // Lane 31 gets its own value back from the shuffle, and the last
        // element has no right-hand neighbour: both use current alone.
        bool has_neighbour = lane < 31 && global_i < size - 1;
        output[global_i] = has_neighbour ? (current + next) * scale_factor
                                         : current * scale_factor;
    }
}
