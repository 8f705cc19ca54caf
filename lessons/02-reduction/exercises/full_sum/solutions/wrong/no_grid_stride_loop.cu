// Bug (partial sum): each thread reads one float4 and stops, so only the first
// 1024 * 256 * 4 = 1,048,576 elements are ever summed.
extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    __shared__ float per_warp[8];
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    if (tid < N / 4) {
        float4 v = reinterpret_cast<const float4*>(in)[tid];
        acc = v.x + v.y + v.z + v.w;
    }
    if (tid < N % 4) acc += in[(N / 4) * 4 + tid];
    for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if ((threadIdx.x & 31) == 0) per_warp[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < 8; ++w) total += per_warp[w];
        atomicAdd(out, total);
    }
}
