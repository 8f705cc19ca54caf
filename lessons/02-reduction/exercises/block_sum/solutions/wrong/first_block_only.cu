// Wrong: only block 0 publishes its sum, so everything past element 255 is lost.
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = (i < N) ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) tile[t] += tile[t + stride];
        __syncthreads();
    }
    if (blockIdx.x == 0 && t == 0) {
        out[0] = tile[0];
    }
}
