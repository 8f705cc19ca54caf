// The textbook staging: the threads load the block's 1024 elements, and the
// first R threads also load the left and right halos (R <= 16 < 256). The
// taps are copied to shared memory too.
extern "C" __global__ void conv1d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int N, int R) {
    extern __shared__ float tile[];
    __shared__ float taps[33];
    const int span = blockDim.x * 4;
    const int start = blockIdx.x * span;
    for (int j = threadIdx.x; j < span; j += blockDim.x)
        tile[R + j] = start + j < N ? x[start + j] : 0.0f;
    if (threadIdx.x < R) {
        const int left = start - R + threadIdx.x;
        const int right = start + span + threadIdx.x;
        tile[threadIdx.x] = left >= 0 ? x[left] : 0.0f;
        tile[R + span + threadIdx.x] = right < N ? x[right] : 0.0f;
    }
    if (threadIdx.x <= 2 * R) taps[threadIdx.x] = w[threadIdx.x];
    __syncthreads();
    for (int j = threadIdx.x; j < span && start + j < N; j += blockDim.x) {
        float sum = 0.0f;
        for (int k = 0; k <= 2 * R; ++k) sum += taps[k] * tile[j + k];
        y[start + j] = sum;
    }
}
