// One warp does the whole row (the other warps of the block return at once):
// lane l scans columns l, l + 32, ... and the 32 pairs merge by shuffles.
// No shared memory and no barrier; slower on long rows (one warp's loads).
#define NEG_INF __int_as_float(0xff800000)

extern "C" __global__ void argmax(const float* logits, int* index, float* value, int rows, int vocab) {
    if (threadIdx.x >= 32) return;
    const float* xr = logits + (size_t)blockIdx.x * vocab;
    float v = NEG_INF;
    int c = vocab;  // loses every tie
    for (int i = threadIdx.x; i < vocab; i += 32)
        if (xr[i] > v) { v = xr[i]; c = i; }
    for (int o = 16; o > 0; o >>= 1) {
        float v2 = __shfl_xor_sync(0xffffffffu, v, o);
        int c2 = __shfl_xor_sync(0xffffffffu, c, o);
        if (v2 > v || (v2 == v && c2 < c)) { v = v2; c = c2; }
    }
    if (threadIdx.x == 0) { index[blockIdx.x] = c; value[blockIdx.x] = v; }
}
