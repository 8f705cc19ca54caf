// expect: wrong_answer — float4 body plus a scalar tail, but every block adds the tail (it is counted 1024 times)
extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    __shared__ float sums[8];
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = N / 4;
    float acc = 0.0f;
    for (int i = tid; i < n4; i += gridDim.x * blockDim.x) {
        float4 v = reinterpret_cast<const float4*>(in)[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (threadIdx.x < N - 4 * n4) acc += in[4 * n4 + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x % 32 == 0) sums[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int w = 0; w < 8; ++w) s += sums[w];
        atomicAdd(out, s);
    }
}
