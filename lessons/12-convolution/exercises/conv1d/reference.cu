// Reference: the block stages its 1024 inputs and the halo in shared memory
// once (each element of x is read from memory about once), then every thread
// sums the taps of its 4 outputs from shared memory. The 4 loads of the
// staging are issued before any is stored, so a thread has 4 reads in flight.
// All threads read the same tap w[k] at the same time: one broadcast.
#define PER_THREAD 4

extern "C" __global__ void conv1d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int N, int R) {
    extern __shared__ float tile[];           // tile[j] holds x[start - R + j]
    const int start = blockIdx.x * blockDim.x * PER_THREAD;
    const int t = threadIdx.x, step = blockDim.x;
    float staged[PER_THREAD];
#pragma unroll
    for (int q = 0; q < PER_THREAD; ++q) {    // consecutive threads, consecutive elements
        const int g = start - R + t + q * step;
        staged[q] = (g >= 0 && g < N) ? x[g] : 0.0f;   // zero padding, not the edge value
    }
    if (t < 2 * R) {                          // the last 2R of the span
        const int g = start - R + PER_THREAD * step + t;
        tile[PER_THREAD * step + t] = g < N ? x[g] : 0.0f;
    }
#pragma unroll
    for (int q = 0; q < PER_THREAD; ++q) tile[t + q * step] = staged[q];
    __syncthreads();                          // the halo was loaded by other threads
    float sum[PER_THREAD] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k <= 2 * R; ++k) {
        const float tap = __ldg(w + k);
#pragma unroll
        for (int q = 0; q < PER_THREAD; ++q) sum[q] += tap * tile[t + q * step + k];
    }
#pragma unroll
    for (int q = 0; q < PER_THREAD; ++q)
        if (start + t + q * step < N) y[start + t + q * step] = sum[q];
}
