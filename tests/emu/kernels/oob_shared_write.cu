// Bad: a 64-element shared tile written by a 128-thread block.
extern "C" __global__ void k(const float* in, float* out) {
    __shared__ float tile[64];
    int t = threadIdx.x;
    tile[t] = in[t];
    __syncthreads();
    if (t < 64) out[t] = tile[63 - t];
}
