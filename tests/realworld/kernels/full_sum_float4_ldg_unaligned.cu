// expect: accepted — float4 __ldg loads with an alignment prologue, uintptr_t from <cstdint>, a two-level shuffle reduction
#include <cstdint>

extern "C" __global__ void full_sum(const float* __restrict__ in, float* __restrict__ out, int N) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    int head = (int)(((16 - (reinterpret_cast<uintptr_t>(in) & 15)) & 15) / sizeof(float));
    head = min(head, N);
    const int body = (N - head) / 4;
    const float4* in4 = reinterpret_cast<const float4*>(in + head);
    float acc = 0.0f;
    for (int i = tid; i < body; i += stride) {
        float4 v = __ldg(in4 + i);
        acc += v.x + v.y + v.z + v.w;
    }
    for (int i = tid; i < head; i += stride) acc += in[i];
    for (int i = head + 4 * body + tid; i < N; i += stride) acc += in[i];

    __shared__ float warp_acc[32];
    for (int o = 16; o; o >>= 1) acc += __shfl_down_sync(~0u, acc, o);
    if (threadIdx.x % 32 == 0) warp_acc[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < blockDim.x / 32 ? warp_acc[threadIdx.x] : 0.f;
        for (int o = 16; o; o >>= 1) acc += __shfl_down_sync(~0u, acc, o);
        if (threadIdx.x == 0) atomicAdd(out, acc);
    }
}
