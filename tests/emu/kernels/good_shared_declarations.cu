// Good: a block sum whose shared variables are declared in the forms the emulator
// rewrites by name (several in one declaration) and the form it tracks unnamed (a macro).
#define BLOCK_SHARED __shared__
extern "C" __global__ void k(const float* in, float* out, int n) {
    __shared__ float partial[8], total;
    BLOCK_SHARED float staged[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    staged[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x < 8) {
        float s = 0.0f;
        for (int j = 0; j < 32; ++j) s += staged[threadIdx.x * 32 + j];
        partial[threadIdx.x] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        total = 0.0f;
        for (int j = 0; j < 8; ++j) total += partial[j];
        out[blockIdx.x] = total;
    }
}
