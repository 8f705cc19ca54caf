// Bug: only the float4 part is summed; when N is not a multiple of 4 the
// last 1-3 elements are dropped (and N < 4 sums to 0).
extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    __shared__ float per_warp[8];
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int i = tid; i < N / 4; i += gridDim.x * blockDim.x) {
        float4 v = reinterpret_cast<const float4*>(in)[i];
        acc += v.x + v.y + v.z + v.w;
    }
    for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if ((threadIdx.x & 31) == 0) per_warp[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < 8; ++w) total += per_warp[w];
        atomicAdd(out, total);
    }
}
