// 1-D correlation: y[i] = sum of w[k + R] * x[i + k] for k in [-R, R], with
// x = 0 outside [0, N).
// Launch: ceil_div(N, 1024) blocks of 256 threads, (1024 + 2R) floats of
// dynamic shared memory: room for the block's 1024 inputs and a halo of R a
// side. Thread t owns the outputs start + t + 256 q, q = 0..3.
#define PER_THREAD 4

extern "C" __global__ void conv1d(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ y, int N, int R) {
    extern __shared__ float tile[];           // tile[j] holds x[start - R + j]
    // BEGIN FILL-IN
    // const int start = blockIdx.x * blockDim.x * PER_THREAD;  (this block's first output)
    // TODO: stage x[start - R] .. x[start + 1023 + R] in tile (0 outside the
    // array), wait for the block, then compute this thread's outputs below N.
    // END FILL-IN
}
