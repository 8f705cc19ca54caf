// expect: runtime_error — writes 4 KiB past the launch's 32 bytes of dynamic shared memory
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    extern __shared__ float warp_sums[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < N ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[blockDim.x * 4 + warp] = v;   // the index should be `warp`
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < blockDim.x / 32; ++w) total += warp_sums[w];
        atomicAdd(out, total);
    }
}
