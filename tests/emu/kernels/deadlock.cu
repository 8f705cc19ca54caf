// Bad: lane 0 waits at the barrier, the rest of its warp waits for lane 0 in a shuffle.
extern "C" __global__ void k(float* out) {
    int lane = threadIdx.x % 32;
    float v = lane;
    if (lane == 0) {
        __syncthreads();
    } else {
        v = __shfl_sync(0xffffffffu, v, 0);
    }
    out[threadIdx.x] = v;
}
