// expect: accepted — grid-stride sums, the shared tree with barriers, then a volatile last-warp loop with a shrinking `if (tid < s)`
#define THREADS 256
extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    __shared__ float partial[THREADS];
    float sum = 0.0f;
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < N; i += gridDim.x * THREADS) sum += in[i];
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 32; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        volatile float* vp = partial;
        for (int s = 32; s > 0; s >>= 1)
            if (threadIdx.x < s) vp[threadIdx.x] += vp[threadIdx.x + s];
    }
    if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}
