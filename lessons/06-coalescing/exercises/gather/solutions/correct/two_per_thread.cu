// Correct: each thread handles i and i + stride/2 per step, two loads in
// flight before either store.
extern "C" __global__ void gather(const float* in, const int* idx, float* out, int N) {
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += 2 * stride) {
        int k = i + stride;
        float a = in[idx[i]];
        if (k < N) out[k] = in[idx[k]];
        out[i] = a;
    }
}
