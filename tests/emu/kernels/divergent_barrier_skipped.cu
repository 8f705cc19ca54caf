// Bad: the upper half of the block returns before the barrier.
extern "C" __global__ void k(float* out) {
    __shared__ float s[64];
    int t = threadIdx.x;
    if (t >= 32) return;
    s[t] = 1.0f;
    __syncthreads();
    out[t] = s[31 - t];
}
