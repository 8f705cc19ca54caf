// Lane 0 adds the first four inputs of its block; a shuffle hands the sum to every lane.
extern "C" __global__ void k(float* output, const float* input, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    if (i < size) {
        float head = 0.0f;
        if (lane == 0) {
            int first = blockIdx.x * blockDim.x;
            for (int j = 0; j < 4 && first + j < size; ++j) head += input[first + j];
        }
        head = __shfl_sync(0xffffffffu, head, 0);
        output[i] = head + input[i];
    }
}
