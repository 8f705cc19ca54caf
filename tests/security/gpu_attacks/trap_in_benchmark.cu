// Correct at every test size (N up to 2^20); traps at the benchmark's larger
// sizes only, i.e. only in the benchmark's timed calls.
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (N > (1 << 20)) __trap();
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) s += in[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}
