// Correct without the second shuffle: the neighbour is read from global
// memory (it is the next element of the array, so the load is cached).
extern "C" __global__ void broadcast_shuffle_coordination(float* output, const float* input, int size) {
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float scale = 0.0f;
    if (lane == 0) {
        int block_start = blockIdx.x * blockDim.x;
        float sum = 0.0f;
        for (int i = 0; i < 4; ++i) {
            if (block_start + i < size) sum += input[block_start + i];
        }
        scale = sum * 0.25f;
    }
    scale = __shfl_sync(0xffffffffu, scale, 0);
    if (global_i >= size) return;
    float value = input[global_i];
    if (lane != 31 && global_i + 1 < size) value += input[global_i + 1];
    output[global_i] = value * scale;
}
