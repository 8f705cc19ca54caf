// expect: accepted — __ballot_sync, __popc, __ffs, __clz, __brev, __any_sync pick the lanes that hold data
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float partial[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31u;
    float v = i < N ? in[i] : 0.0f;
    unsigned have = __ballot_sync(0xffffffffu, i < N);
    int count = __popc(have);                     // lanes with an element (a prefix of the warp)
    int first = __ffs(have) - 1;                  // 0 when any, -1 when none
    int highest = have ? 31 - __clz(have) : -1;   // last lane with an element
    unsigned reversed = __brev(have);             // bit 31 - l set for lane l
    if (__any_sync(0xffffffffu, i < N)) {
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    if (lane == 0) {
        bool consistent = count == highest + 1 && (first == 0 || count == 0) &&
                          (count == 0 || (reversed >> (31 - highest)) & 1u);
        partial[threadIdx.x >> 5] = consistent ? v : -1.0e30f;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int w = 0; w < 8; ++w) s += partial[w];
        atomicAdd(out, s);
    }
}
