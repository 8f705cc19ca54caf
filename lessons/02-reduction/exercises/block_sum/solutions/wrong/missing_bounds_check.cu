// Wrong: no `i < N` test, so the last block reads past the end of `in`.
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    extern __shared__ float warp_sums[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffff, v, offset);
    }
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < 8) ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1) {
            v += __shfl_down_sync(0xffffffff, v, offset);
        }
        if (lane == 0) atomicAdd(out, v);
    }
}
