// Bug: the shuffle sits inside the lane-0 branch, so lanes 1..31 never take
// part and keep 0 instead of the sum.
extern "C" __global__ void basic_broadcast(float* output, const float* input, int size) {
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float value = 0.0f;
    if (lane == 0) {
        int block_start = blockIdx.x * blockDim.x;
        for (int i = 0; i < 4 && block_start + i < size; ++i) value += input[block_start + i];
        value = __shfl_sync(0xffffffffu, value, 0);
    }
    if (global_i < size) output[global_i] = input[global_i] + value;
}
