// Bug (partial sum): lane 0 stores its own register sum without first adding
// the other 31 lanes' sums with a shuffle, so 31/32 of the data is lost.
extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    __shared__ float per_warp[8];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) acc += in[i];
    if ((threadIdx.x & 31) == 0) per_warp[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < 8; ++w) total += per_warp[w];
        atomicAdd(out, total);
    }
}
