// expect: accepted — warp and block reductions as generic lambdas (`[](auto v, auto op)`), which nvcc compiles as device code; an unannotated constexpr helper
constexpr int warps_of(int threads) { return (threads + 31) / 32; }

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    extern __shared__ float partial[];
    auto warp_reduce = [](auto v, auto op) {
        for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
        return v;
    };
    auto plus = [](auto a, auto b) { return a + b; };
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_reduce(i < N ? in[i] : 0.0f, plus);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = warp_reduce(threadIdx.x < warps_of(blockDim.x) ? partial[threadIdx.x] : 0.0f, plus);
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
}
