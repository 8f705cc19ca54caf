// Bad: half of the warp shuffles while the other half votes, under one mask.
extern "C" __global__ void k(float* out) {
    int lane = threadIdx.x % 32;
    float v = lane;
    if (lane < 16) {
        v = __shfl_sync(0xffffffffu, v, 0);
    } else {
        v = (float)__ballot_sync(0xffffffffu, lane > 20);
    }
    out[threadIdx.x] = v;
}
