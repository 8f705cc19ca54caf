// BUG: scatters (out[idx[i]] = in[i]) instead of gathering. With repeated
// indices some out[j] are written twice and others never.
extern "C" __global__ void gather(const float* in, const int* idx, float* out, int N) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) {
        out[idx[i]] = in[i];
    }
}
