// BUG: tile[j] is filled from x[start + j], forgetting that the tile starts
// R elements before the block (x[start - R + j]): every output reads its
// window R places too far right.
extern "C" __global__ void conv1d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int N, int R) {
    extern __shared__ float tile[];
    const int span = blockDim.x * 4;
    const int start = blockIdx.x * span;
    for (int j = threadIdx.x; j < span + 2 * R; j += blockDim.x) {
        const int g = start + j;
        tile[j] = (g >= 0 && g < N) ? x[g] : 0.0f;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < span && start + j < N; j += blockDim.x) {
        float sum = 0.0f;
        for (int k = 0; k <= 2 * R; ++k) sum += w[k] * tile[j + k];
        y[start + j] = sum;
    }
}
