// expect: accepted — __launch_bounds__(256, 4) before the name, __noinline__ and __forceinline__ helpers, typedef
typedef float real_t;

__device__ __noinline__ real_t axpy_one(real_t a, real_t x, real_t y) { return a * x + y; }
__device__ __forceinline__ int global_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

extern "C" __global__ void __launch_bounds__(256, 4) saxpy(int n, float a, const float* x, float* y) {
    for (int i = global_index(); i < n; i += gridDim.x * blockDim.x) y[i] = axpy_one(a, x[i], y[i]);
}
