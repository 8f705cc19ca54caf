// expect: accepted — siboehm/llm.c style: float4 loads, __ldg, __launch_bounds__, #pragma unroll, fmaf
extern "C" __global__ void __launch_bounds__(256) saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    int stride = gridDim.x * blockDim.x;
    int n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 xv = __ldg(&x4[i]);
        float4 yv = y4[i];
        yv.x = fmaf(a, xv.x, yv.x);
        yv.y = fmaf(a, xv.y, yv.y);
        yv.z = fmaf(a, xv.z, yv.z);
        yv.w = fmaf(a, xv.w, yv.w);
        y4[i] = yv;
    }
#pragma unroll 4
    for (int i = n4 * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = fmaf(a, __ldg(&x[i]), y[i]);
}
