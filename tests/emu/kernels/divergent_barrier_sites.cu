// Bad: the two halves of the block wait at two different __syncthreads().
extern "C" __global__ void k(float* out) {
    __shared__ float s[64];
    int t = threadIdx.x;
    if (t < 32) {
        s[t] = 1.0f;
        __syncthreads();
    } else {
        s[t] = 2.0f;
        __syncthreads();
    }
    out[t] = s[63 - t];
}
