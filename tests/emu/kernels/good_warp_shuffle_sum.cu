// Warp shuffles, then the first warp adds the warps' partial sums, one atomicAdd per block.
__device__ __forceinline__ float warp_total(float v) {
    for (int d = warpSize / 2; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    return v;
}

extern "C" __global__ void k(const float* in, float* out, int n) {
    extern __shared__ float partial[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    float v = warp_total(i < n ? in[i] : 0.0f);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_total(lane < blockDim.x / warpSize ? partial[lane] : 0.0f);
        if (lane == 0) atomicAdd(out, v);
    }
}
