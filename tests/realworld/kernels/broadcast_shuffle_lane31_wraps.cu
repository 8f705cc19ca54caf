// expect: wrong_answer — lane 31 treats its own value (what __shfl_down_sync gives it back) as a neighbour
extern "C" __global__ void broadcast_shuffle_coordination(float* output, const float* input, int size) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float scale = 0.0f;
    if (lane == 0) {
        int b = blockIdx.x * blockDim.x;
        for (int k = 0; k < 4 && b + k < size; ++k) scale += input[b + k];
        scale /= 4.0f;
    }
    scale = __shfl_sync(0xffffffff, scale, 0);
    float cur = gid < size ? input[gid] : 0.0f;
    float nxt = __shfl_down_sync(0xffffffff, cur, 1);
    if (gid < size) output[gid] = gid < size - 1 ? (cur + nxt) * scale : cur * scale;
}
