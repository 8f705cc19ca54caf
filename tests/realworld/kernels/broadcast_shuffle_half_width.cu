// expect: accepted — __shfl_down_sync with an explicit width of 32, a lambda for the output rule, __activemask() after an early exit-free prologue
extern "C" __global__ void broadcast_shuffle_coordination(float* output, const float* input, int size) {
    const int gid = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const unsigned full = __activemask();   // all 32 lanes are here: nobody has returned yet
    float scale = 0.0f;
    if (lane == 0) {
        const int b = blockIdx.x * blockDim.x;
        float s = 0.0f;
        for (int k = 0; k < 4; ++k) s += (b + k < size) ? input[b + k] : 0.0f;
        scale = s * 0.25f;
    }
    scale = __shfl_sync(full, scale, 0, 32);
    const float cur = gid < size ? input[gid] : 0.0f;
    const float nxt = __shfl_down_sync(full, cur, 1, 32);
    auto combine = [&](bool has_next) { return has_next ? (cur + nxt) * scale : cur * scale; };
    if (gid < size) output[gid] = combine(lane < 31 && gid + 1 < size);
}
