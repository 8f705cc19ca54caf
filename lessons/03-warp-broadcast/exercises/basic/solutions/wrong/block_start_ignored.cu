// Bug: lane 0 always sums input[0..3], the first 4 elements of the whole
// array, instead of the first 4 of its own block. Right for one warp only.
extern "C" __global__ void basic_broadcast(float* output, const float* input, int size) {
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float value = 0.0f;
    if (lane == 0) {
        for (int i = 0; i < 4 && i < size; ++i) value += input[i];
    }
    value = __shfl_sync(0xffffffffu, value, 0);
    if (global_i < size) output[global_i] = input[global_i] + value;
}
