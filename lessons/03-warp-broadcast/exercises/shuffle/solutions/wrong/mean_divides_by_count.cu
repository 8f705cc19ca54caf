// Bug: in a last block with fewer than 4 elements the sum is divided by the
// number of elements present; the task's mean always divides by 4.
extern "C" __global__ void broadcast_shuffle_coordination(float* output, const float* input, int size) {
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float scale = 0.0f;
    if (lane == 0) {
        int block_start = blockIdx.x * blockDim.x;
        int count = min(4, size - block_start);
        float sum = 0.0f;
        for (int i = 0; i < count; ++i) sum += input[block_start + i];
        scale = sum / count;
    }
    scale = __shfl_sync(0xffffffffu, scale, 0);
    float current = (global_i < size) ? input[global_i] : 0.0f;
    float next = __shfl_down_sync(0xffffffffu, current, 1);
    if (global_i < size) {
        bool has_neighbour = lane < 31 && global_i < size - 1;
        output[global_i] = has_neighbour ? (current + next) * scale : current * scale;
    }
}
