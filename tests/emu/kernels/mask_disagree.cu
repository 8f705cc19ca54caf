// Bad: lanes 0..15 name the whole warp, lanes 16..31 only themselves.
extern "C" __global__ void k(float* out) {
    int lane = threadIdx.x % 32;
    unsigned mask = lane < 16 ? 0xffffffffu : 0xffff0000u;
    float v = __shfl_sync(mask, (float)lane, 16);
    out[threadIdx.x] = v;
}
