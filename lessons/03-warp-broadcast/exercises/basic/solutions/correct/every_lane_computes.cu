// Correct but wasteful: every lane sums the same 4 elements itself, so no
// broadcast is needed. Same result, 4 loads per lane instead of 1 shuffle.
extern "C" __global__ void basic_broadcast(float* output, const float* input, int size) {
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    int block_start = blockIdx.x * blockDim.x;
    if (global_i >= size) return;
    float head = 0.0f;
    for (int i = 0; i < 4; ++i) {
        if (block_start + i < size) head += input[block_start + i];
    }
    output[global_i] = input[global_i] + head;
}
