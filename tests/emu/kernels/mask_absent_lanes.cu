// Bad: the full mask names lanes 16..31, which never reach the shuffle.
extern "C" __global__ void k(float* out) {
    int lane = threadIdx.x % 32;
    float v = lane;
    if (lane < 16) {
        v = __shfl_sync(0xffffffffu, v, 0);
    }
    out[threadIdx.x] = v;
}
