// Bad: reads a shared array (declared through a macro) before any thread wrote it.
#define BLOCK_SHARED __shared__
extern "C" __global__ void k(const float* in, float* out) {
    BLOCK_SHARED float partial[64];
    float v = partial[threadIdx.x];
    partial[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = v * 0.0f + partial[threadIdx.x];
}
