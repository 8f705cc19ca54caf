// Coalesced, one float per access: the grid-stride copy without float4.
extern "C" __global__ void copy_scalar(const float* in, float* out, int N, int offset) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        out[offset + i] = in[offset + i];
}
