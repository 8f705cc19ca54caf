// A warp per row, one float per lane per step, whatever K is: coalesced, and
// simpler than float4; the middle step of the benchmark table.
extern "C" __global__ void gemv(const float* __restrict__ A, const float* __restrict__ x,
                                float* __restrict__ y, int M, int K) {
    const int row = blockIdx.x * 8 + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= M) return;
    const int chunk = (K + gridDim.y - 1) / gridDim.y;
    const int k_begin = blockIdx.y * chunk;
    const int k_end = min(K, k_begin + chunk);
    float sum = 0.0f;
    for (int k = k_begin + lane; k < k_end; k += 32) sum += A[(size_t)row * K + k] * x[k];
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) atomicAdd(y + row, sum);
}
