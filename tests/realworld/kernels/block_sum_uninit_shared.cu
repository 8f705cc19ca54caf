// expect: wrong_answer — the second stage reads all 32 slots, but only 8 warps wrote theirs
__device__ float warp_reduce(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_reduce(i < N ? in[i] : 0.0f);
    if (threadIdx.x % 32 == 0) sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = warp_reduce(sums[threadIdx.x]);   // slots 8..31 were never written
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
}
