// expect: accepted — every lane holds one of the first 8 values (or -FLT_MAX), a __shfl_xor_sync max butterfly, fmaxf, <cfloat>
#include <cfloat>

__device__ __forceinline__ float warp_max(float v) {
    for (int m = 16; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, m));
    return v;
}

extern "C" __global__ void conditional_broadcast(float* output, const float* input, int size) {
    int lane = threadIdx.x % warpSize;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    float candidate = (lane < 8 && gid < size) ? input[gid] : -FLT_MAX;
    float mx = warp_max(candidate);
    if (gid >= size) return;
    float x = input[gid];
    output[gid] = (x >= mx / 2.0f) ? x * 2.0f : x / 2.0f;
}
