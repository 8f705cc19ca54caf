// expect: accepted — the neighbour through shared memory with __syncwarp(), the scale through __shfl_sync
extern "C" __global__ void broadcast_shuffle_coordination(float* output, const float* input, int size) {
    __shared__ float vals[32];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float cur = gid < size ? input[gid] : 0.0f;
    vals[lane] = cur;
    __syncwarp();
    float scale = 0.0f;
    if (lane == 0) scale = (vals[0] + vals[1] + vals[2] + vals[3]) / 4.0f;
    scale = __shfl_sync(0xffffffffu, scale, 0);
    float next = lane < 31 ? vals[lane + 1] : 0.0f;
    if (gid < size) output[gid] = (lane < 31 && gid < size - 1) ? (cur + next) * scale : cur * scale;
}
