// Bug: lane 31 is treated like the others. __shfl_down_sync(…, 1) hands lane
// 31 its own value, so it writes 2 * current * scale instead of current * scale.
extern "C" __global__ void broadcast_shuffle_coordination(float* output, const float* input, int size) {
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float scale = 0.0f;
    if (lane == 0) {
        int block_start = blockIdx.x * blockDim.x;
        float sum = 0.0f;
        for (int i = 0; i < 4 && block_start + i < size; ++i) sum += input[block_start + i];
        scale = sum / 4.0f;
    }
    scale = __shfl_sync(0xffffffffu, scale, 0);
    float current = (global_i < size) ? input[global_i] : 0.0f;
    float next = __shfl_down_sync(0xffffffffu, current, 1);
    if (global_i < size) {
        bool has_neighbour = global_i < size - 1;
        output[global_i] = has_neighbour ? (current + next) * scale : current * scale;
    }
}
