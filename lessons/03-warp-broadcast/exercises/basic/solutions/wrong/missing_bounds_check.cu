// Bug: no bounds check on the store, so the last warp writes past the end of
// output when size is not a multiple of 32.
extern "C" __global__ void basic_broadcast(float* output, const float* input, int size) {
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float value = 0.0f;
    if (lane == 0) {
        int block_start = blockIdx.x * blockDim.x;
        for (int i = 0; i < 4 && block_start + i < size; ++i) value += input[block_start + i];
    }
    value = __shfl_sync(0xffffffffu, value, 0);
    float x = global_i < size ? input[global_i] : 0.0f;
    output[global_i] = x + value;
}
