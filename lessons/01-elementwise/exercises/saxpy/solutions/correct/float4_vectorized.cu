// Correct: 16-byte loads and stores (four floats at a time) where both arrays
// are 16-byte aligned, then the 0-3 leftover elements one by one.
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    bool aligned = ((reinterpret_cast<unsigned long long>(x) |
                     reinterpret_cast<unsigned long long>(y)) & 15ull) == 0;
    int vec = aligned ? n / 4 : 0;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int i = tid; i < vec; i += stride) {
        float4 xv = x4[i];
        float4 yv = y4[i];
        yv.x = a * xv.x + yv.x;
        yv.y = a * xv.y + yv.y;
        yv.z = a * xv.z + yv.z;
        yv.w = a * xv.w + yv.w;
        y4[i] = yv;
    }
    for (int i = vec * 4 + tid; i < n; i += stride) {
        y[i] = a * x[i] + y[i];
    }
}
