// Lane 0's mean of the first four inputs scales (own + right neighbour); the
// warp's last lane and the array's last element use their own value only.
extern "C" __global__ void k(float* output, const float* input, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    if (i < size) {
        float scale = 0.0f;
        if (lane == 0) {
            int first = blockIdx.x * blockDim.x;
            for (int j = 0; j < 4 && first + j < size; ++j) scale += input[first + j];
            scale /= 4.0f;
        }
        scale = __shfl_sync(0xffffffffu, scale, 0);
        float mine = input[i];
        float right = __shfl_down_sync(0xffffffffu, mine, 1);
        output[i] = (lane < 31 && i < size - 1) ? (mine + right) * scale : mine * scale;
    }
}
