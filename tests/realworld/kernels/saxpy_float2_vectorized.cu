// expect: accepted — float2 loads and stores through reinterpret_cast, an odd tail handled by one thread
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const int n2 = n / 2;
    const float2* x2 = reinterpret_cast<const float2*>(x);
    float2* y2 = reinterpret_cast<float2*>(y);
    for (int i = tid; i < n2; i += stride) {
        float2 xv = x2[i];
        float2 yv = y2[i];
        yv.x = a * xv.x + yv.x;
        yv.y = a * xv.y + yv.y;
        y2[i] = yv;
    }
    if ((n & 1) && tid == 0) y[n - 1] = a * x[n - 1] + y[n - 1];
}
