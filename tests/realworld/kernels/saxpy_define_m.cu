// expect: compile_error — `#define n 16` rewrites the declaration the judge appends
#define n 16
extern "C" __global__ void saxpy(int count, float a, const float* x, float* y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}
