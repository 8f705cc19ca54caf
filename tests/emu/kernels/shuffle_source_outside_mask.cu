// Bad: lanes 0..15 shuffle among themselves but read lanes 16..31.
extern "C" __global__ void k(float* out) {
    int lane = threadIdx.x % 32;
    float v = lane;
    if (lane < 16) {
        v = __shfl_sync(0x0000ffffu, v, lane + 16);
    }
    out[threadIdx.x] = v;
}
