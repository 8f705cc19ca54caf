// expect: accepted — templated device function with a block-size parameter, explicit dispatch on blockDim.x, #pragma unroll with a count
template <int BLOCK_THREADS, int ITEMS>
__device__ __forceinline__ void saxpy_tile(int n, float a, const float* x, float* y) {
    const int tile = BLOCK_THREADS * ITEMS;
    for (int base = blockIdx.x * tile; base < n; base += gridDim.x * tile) {
#pragma unroll 4
        for (int k = 0; k < ITEMS; ++k) {
            int i = base + k * BLOCK_THREADS + threadIdx.x;
            if (i < n) y[i] = fmaf(a, x[i], y[i]);
        }
    }
}

extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    switch (blockDim.x) {
        case 128: saxpy_tile<128, 8>(n, a, x, y); break;
        case 256: saxpy_tile<256, 4>(n, a, x, y); break;
        default:  saxpy_tile<32, 1>(n, a, x, y); break;
    }
}
