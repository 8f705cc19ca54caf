// expect: accepted — the Volta-safe last warp: each step reads into a register, __syncwarp(), writes, __syncwarp()
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * 256 + tid;
    sdata[tid] = i < N ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 128; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        float v = sdata[tid] + sdata[tid + 32];
        __syncwarp();
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1) {
            sdata[tid] = v;
            __syncwarp();
            v += sdata[tid + offset];
            __syncwarp();
        }
        if (tid == 0) atomicAdd(out, v);
    }
}
