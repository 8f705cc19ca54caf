// Variant: peel the floats before the destination's next ALIGN-byte boundary
// (a 32-byte sector or a 128-byte line), so that the float4 body writes whole
// sectors only; the source moves by the same amount (equal misalignment mod 16).
#ifndef UNROLL2
#define UNROLL2 0
#endif
#ifndef ALIGN
#define ALIGN 128
#endif
__device__ __forceinline__ unsigned misalignment_bytes(const void* p, unsigned bytes) {
    return (unsigned)(reinterpret_cast<unsigned long long>(p) & (unsigned long long)(bytes - 1));
}

__device__ void copy_scalar(const float* src, float* dst, int N) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        dst[i] = src[i];
}

extern "C" __global__ void vector_copy(const float* in, float* out, int N, int offset) {
    const float* src = in + offset;
    float* dst = out + offset;
    if (misalignment_bytes(src, 16) != misalignment_bytes(dst, 16)) {
        copy_scalar(src, dst, N);
        return;
    }
    const int head = min(N, (int)(((ALIGN - misalignment_bytes(dst, ALIGN)) & (ALIGN - 1)) >> 2));
    const int n4 = (N - head) >> 2;
    const float4* src4 = reinterpret_cast<const float4*>(src + head);
    float4* dst4 = reinterpret_cast<float4*>(dst + head);
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
#if UNROLL2
    int i = tid;
    for (; i + stride < n4; i += 2 * stride) {     // two 16-byte loads in flight
        const float4 a = src4[i], b = src4[i + stride];
        dst4[i] = a;
        dst4[i + stride] = b;
    }
    if (i < n4) dst4[i] = src4[i];
#else
    for (int i = tid; i < n4; i += stride) dst4[i] = src4[i];
#endif
    const int tail_start = head + 4 * n4;
    if (tid < head) dst[tid] = src[tid];
    if (tid < N - tail_start) dst[tail_start + tid] = src[tail_start + tid];
}
