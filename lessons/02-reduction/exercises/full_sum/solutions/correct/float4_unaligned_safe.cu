// Correct: float4 body only when `in` is 16-byte aligned, otherwise a plain
// scalar sweep; the N % 4 leftover goes to the first threads of the grid.
__device__ float warp_total(float v) {
    v += __shfl_xor_sync(0xffffffffu, v, 16);
    v += __shfl_xor_sync(0xffffffffu, v, 8);
    v += __shfl_xor_sync(0xffffffffu, v, 4);
    v += __shfl_xor_sync(0xffffffffu, v, 2);
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    return v;   // every lane holds the total
}

extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    __shared__ float per_warp[32];
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int threads = gridDim.x * blockDim.x;
    bool aligned = (reinterpret_cast<unsigned long long>(in) & 15ull) == 0;
    int vec = aligned ? N / 4 : 0;
    float acc = 0.0f;
    for (int i = tid; i < vec; i += threads) {
        float4 v = reinterpret_cast<const float4*>(in)[i];
        acc += v.x + v.y + v.z + v.w;
    }
    for (int i = 4 * vec + tid; i < N; i += threads) acc += in[i];
    acc = warp_total(acc);
    if ((threadIdx.x & 31) == 0) per_warp[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < (blockDim.x >> 5) ? per_warp[threadIdx.x] : 0.0f;
        acc = warp_total(acc);
        if (threadIdx.x == 0) atomicAdd(out, acc);
    }
}
