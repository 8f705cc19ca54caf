// expect: wrong_answer — `x > threshold` where the task says >=: an element exactly on the threshold goes the wrong way
extern "C" __global__ void conditional_broadcast(float* output, const float* input, int size) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float m = 0.0f;
    if (lane == 0) {
        int base = blockIdx.x * blockDim.x;
        m = input[base];
        for (int k = 1; k < 8 && base + k < size; ++k) m = fmaxf(m, input[base + k]);
    }
    m = __shfl_sync(0xffffffff, m, 0);
    if (gid < size) {
        float x = input[gid];
        output[gid] = x > m / 2.0f ? 2.0f * x : x / 2.0f;
    }
}
