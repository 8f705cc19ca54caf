// expect: accepted — lane 0 puts the sum in a __shared__ scalar and the warp reads it with no barrier (one warp per block); on a GPU the warp reconverges after the branch [emulator: wrong_answer, an intra-warp race without __syncwarp is judged a data race]
extern "C" __global__ void basic_broadcast(float* output, const float* input, int size) {
    __shared__ float head;
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) {
        int block_start = blockIdx.x * blockDim.x;
        float sum = 0.0f;
        for (int i = 0; i < 4; ++i) if (block_start + i < size) sum += input[block_start + i];
        head = sum;
    }
    if (global_i < size) output[global_i] = input[global_i] + head;
}
