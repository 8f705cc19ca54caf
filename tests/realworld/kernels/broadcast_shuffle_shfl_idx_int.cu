// expect: accepted — the neighbour by __shfl_sync from lane (lane + 1) & 31, its "exists" flag shuffled as an int beside it
extern "C" __global__ void broadcast_shuffle_coordination(float* output, const float* input, int size) {
    const unsigned FULL = 0xffffffffu;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float cur = gid < size ? input[gid] : 0.0f;
    float scale = 0.0f;
    if (lane == 0) {
        for (int k = 0; k < 4; ++k) {
            int j = blockIdx.x * blockDim.x + k;
            if (j < size) scale += input[j];
        }
        scale *= 0.25f;
    }
    scale = __shfl_sync(FULL, scale, 0);
    const int src = (lane + 1) & 31;
    float next = __shfl_sync(FULL, cur, src);
    int next_exists = __shfl_sync(FULL, (int)(gid < size), src);
    bool has_next = lane < 31 && next_exists;
    if (gid < size) output[gid] = has_next ? (cur + next) * scale : cur * scale;
}
