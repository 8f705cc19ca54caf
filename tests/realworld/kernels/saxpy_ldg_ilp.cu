// expect: accepted — __ldg, four independent elements per thread per iteration, #pragma unroll without a count
#define ILP 4
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    const int stride = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x + threadIdx.x; base < n; base += stride * ILP) {
        float xs[ILP], ys[ILP];
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            int i = base + k * stride;
            xs[k] = i < n ? __ldg(&x[i]) : 0.0f;
            ys[k] = i < n ? y[i] : 0.0f;
        }
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            int i = base + k * stride;
            if (i < n) y[i] = a * xs[k] + ys[k];
        }
    }
}
