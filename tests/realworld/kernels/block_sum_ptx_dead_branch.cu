// expect: accepted — inline PTX and clock64 only in branches the preprocessor drops (sm_90a features, __CUDA_ARCH__ >= 1000)
__device__ __forceinline__ unsigned lane_id() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
#else
    return threadIdx.x % 32;
#endif
}

__device__ __forceinline__ float warp_sum(float v) {
#if __CUDA_ARCH__ >= 1000
    long long started = clock64();
#endif
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_sum(i < N ? in[i] : 0.0f);
    if (lane_id() == 0) atomicAdd(out, v);
}
