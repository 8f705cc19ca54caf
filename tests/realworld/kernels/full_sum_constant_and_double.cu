// expect: accepted — per-thread double accumulation, a __constant__ table for the warp offsets, __shfl_down_sync on double, a float result
__constant__ int c_offsets[5] = {16, 8, 4, 2, 1};

extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    __shared__ double warp_totals[32];
    double acc = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) acc += in[i];
#pragma unroll
    for (int k = 0; k < 5; ++k) acc += __shfl_down_sync(0xffffffff, acc, c_offsets[k]);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_totals[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < (int)(blockDim.x >> 5) ? warp_totals[lane] : 0.0;
#pragma unroll
        for (int k = 0; k < 5; ++k) acc += __shfl_down_sync(0xffffffff, acc, c_offsets[k]);
        if (lane == 0) atomicAdd(out, static_cast<float>(acc));
    }
}
