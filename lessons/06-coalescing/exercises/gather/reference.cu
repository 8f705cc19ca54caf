// Reference: one element per thread per step, neighbouring threads on
// neighbouring elements, a grid-stride loop for N beyond the capped grid.
extern "C" __global__ void gather(const float* in, const int* idx, float* out, int N) {
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride) {
        // idx[i] and out[i]: a warp touches 128 consecutive bytes of each.
        // in[idx[i]]: as coalesced as the indices allow; __ldg reads it
        // through the read-only data cache, where neighbouring indices share lines.
        out[i] = __ldg(in + idx[i]);
    }
}
