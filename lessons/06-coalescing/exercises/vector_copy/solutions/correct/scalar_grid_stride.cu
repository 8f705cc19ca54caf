// Correct: coalesced, one float per access (no float4); simple and somewhat slower.
extern "C" __global__ void vector_copy(const float* in, float* out, int N, int offset) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        out[offset + i] = in[offset + i];
}
