// expect: accepted — lane 0 takes fmaxf over up to 8 values (#pragma unroll, min on ints), the decision goes out with __shfl_sync
extern "C" __global__ void conditional_broadcast(float* output, const float* input, int size) {
    const unsigned mask = 0xffffffffu;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    float m = -INFINITY;
    if ((threadIdx.x & 31) == 0) {
        int count = min(8, size - base);
#pragma unroll
        for (int k = 0; k < 8; ++k)
            if (k < count) m = fmaxf(m, __ldg(input + base + k));
    }
    m = __shfl_sync(mask, m, 0);
    const float threshold = 0.5f * m;
    if (gid < size) {
        float x = input[gid];
        output[gid] = x >= threshold ? 2.0f * x : __fdividef(x, 2.0f);
    }
}
