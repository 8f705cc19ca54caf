// BUG: no barrier between staging and reading: a thread may read halo and
// neighbour elements before the threads that load them have written them.
extern "C" __global__ void conv1d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int N, int R) {
    extern __shared__ float tile[];
    const int span = blockDim.x * 4;
    const int start = blockIdx.x * span;
    for (int j = threadIdx.x; j < span + 2 * R; j += blockDim.x) {
        const int g = start - R + j;
        tile[j] = (g >= 0 && g < N) ? x[g] : 0.0f;
    }
    for (int j = threadIdx.x; j < span && start + j < N; j += blockDim.x) {
        float sum = 0.0f;
        for (int k = 0; k <= 2 * R; ++k) sum += w[k] * tile[j + k];
        y[start + j] = sum;
    }
}
