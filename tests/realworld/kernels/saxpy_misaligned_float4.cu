// expect: runtime_error — a float4 load from x + 1, an address that is not a multiple of 16
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = i; j < n; j += gridDim.x * blockDim.x) y[j] = a * x[j] + y[j];
    const float4* shifted = reinterpret_cast<const float4*>(x + 1);
    if (4 * i + 4 < n) {
        float4 v = shifted[i];   // all four lanes are used: one 16-byte load, misaligned
        if (v.x + v.y + v.z + v.w == 1234.5f) y[0] = 0.0f;
    }
}
