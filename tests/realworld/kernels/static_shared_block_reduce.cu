// expect: accepted — the blockReduceSum idiom: static __shared__ in a __device__ function
__inline__ __device__ float warpReduceSum(float val) {
    for (int mask = 16; mask > 0; mask >>= 1) val += __shfl_xor_sync(0xffffffff, val, mask, 32);
    return val;
}

__inline__ __device__ float blockReduceSum(float val) {
    static __shared__ float shared[32];
    int lane = threadIdx.x & 0x1f;
    int wid = threadIdx.x >> 5;
    val = warpReduceSum(val);
    if (lane == 0) shared[wid] = val;
    __syncthreads();
    val = (threadIdx.x < (blockDim.x >> 5)) ? shared[lane] : 0.0f;
    val = warpReduceSum(val);
    return val;
}

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = blockReduceSum(i < N ? in[i] : 0.0f);
    if (threadIdx.x == 0) atomicAdd(out, sum);
}
