// Correct: the pre-shuffle way, through shared memory and a barrier.
extern "C" __global__ void basic_broadcast(float* output, const float* input, int size) {
    __shared__ float head;
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) {
        int block_start = blockIdx.x * blockDim.x;
        float sum = 0.0f;
        for (int i = 0; i < 4; ++i) {
            if (block_start + i < size) sum += input[block_start + i];
        }
        head = sum;
    }
    __syncthreads();
    if (global_i < size) output[global_i] = input[global_i] + head;
}
