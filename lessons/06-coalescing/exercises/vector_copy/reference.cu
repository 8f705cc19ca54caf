// Reference: peel the 0-3 floats before the first 16-byte boundary, copy the
// middle as float4 with a grid-stride loop, then the 0-3 floats after it.
__device__ __forceinline__ unsigned misalignment_bytes(const void* p) {
    return (unsigned)(reinterpret_cast<unsigned long long>(p) & 15ull);
}

__device__ void copy_scalar(const float* src, float* dst, int N) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        dst[i] = src[i];
}

extern "C" __global__ void vector_copy(const float* in, float* out, int N, int offset) {
    const float* src = in + offset;
    float* dst = out + offset;
    // float4 on both sides needs src and dst equally misaligned (always so when
    // the two buffers themselves are 16-byte aligned, as allocations are).
    if (misalignment_bytes(src) != misalignment_bytes(dst)) {
        copy_scalar(src, dst, N);
        return;
    }
    // a float* is 4-byte aligned: 0-3 floats reach the next 16-byte boundary
    const int head = min(N, (int)(((16u - misalignment_bytes(src)) & 15u) >> 2));
    const int n4 = (N - head) >> 2;
    const float4* src4 = reinterpret_cast<const float4*>(src + head);
    float4* dst4 = reinterpret_cast<float4*>(dst + head);
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    for (int i = tid; i < n4; i += stride) dst4[i] = src4[i];
    // the head and the 0-3 floats after the last float4: one thread each
    const int tail_start = head + 4 * n4;
    if (tid < head) dst[tid] = src[tid];
    if (tid < N - tail_start) dst[tail_start + tid] = src[tail_start + tid];
}
