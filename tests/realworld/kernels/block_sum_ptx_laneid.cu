// expect: accepted — gpu-only: inline PTX assembly (asm) reads the lane id (the emulator answers "needs a GPU", line 4)
__device__ __forceinline__ unsigned lane_id() {
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < N ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane_id() == 0) atomicAdd(out, v);
}
