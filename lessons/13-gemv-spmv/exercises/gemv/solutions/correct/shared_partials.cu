// Partial sums through shared memory instead of shuffles: every lane writes
// its sum, then lane 0 of each warp adds the warp's 32 values.
extern "C" __global__ void gemv(const float* __restrict__ A, const float* __restrict__ x,
                                float* __restrict__ y, int M, int K) {
    __shared__ float partial[256];
    const int row = blockIdx.x * 8 + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int chunk = (K + gridDim.y - 1) / gridDim.y;
    const int k_begin = blockIdx.y * chunk;
    const int k_end = min(K, k_begin + chunk);
    float sum = 0.0f;
    if (row < M)
        for (int k = k_begin + lane; k < k_end; k += 32) sum += A[(size_t)row * K + k] * x[k];
    partial[threadIdx.x] = sum;
    __syncwarp();
    if (lane == 0 && row < M) {
        float total = 0.0f;
        for (int l = 0; l < 32; ++l) total += partial[threadIdx.x + l];
        atomicAdd(y + row, total);
    }
}
