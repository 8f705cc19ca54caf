// Grid-stride sums into shared memory, a tree with barriers down to one warp,
// then the last levels inside warp 0 ordered by __syncwarp(). 256 threads a block.
extern "C" __global__ void k(const float* x, float* y, int n) {
    extern __shared__ float acc[];
    int t = threadIdx.x;
    acc[t] = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) acc[t] += x[i];
    __syncthreads();
    if (t < 128) acc[t] += acc[t + 128];
    __syncthreads();
    if (t < 64) acc[t] += acc[t + 64];
    __syncthreads();
    if (t < 32) acc[t] += acc[t + 32];
    __syncthreads();
    if (t < 16) acc[t] += acc[t + 16];
    __syncwarp();
    if (t < 8) acc[t] += acc[t + 8];
    __syncwarp();
    if (t < 4) acc[t] += acc[t + 4];
    __syncwarp();
    if (t < 2) acc[t] += acc[t + 2];
    __syncwarp();
    if (t == 0) y[blockIdx.x] = acc[0] + acc[1];
}
