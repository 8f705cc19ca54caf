// expect: accepted — __syncthreads_count / _or / _and decide the work; warps with no element skip the shuffles
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    extern __shared__ float warp_sums[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool valid = i < N;
    int active = __syncthreads_count(valid);
    int any_negative = __syncthreads_or(valid && in[i] < 0.0f);
    int all_valid = __syncthreads_and(valid);
    float v = valid ? in[i] : 0.0f;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (warp * 32 < active) {   // a whole warp takes this branch or none of it
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    }
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        int warps = (active + 31) / 32;
        for (int w = 0; w < warps; ++w) s += warp_sums[w];
        if (all_valid && active != blockDim.x) s = __int_as_float(0x7fc00000);  // cannot happen
        (void)any_negative;
        atomicAdd(out, s);
    }
}
