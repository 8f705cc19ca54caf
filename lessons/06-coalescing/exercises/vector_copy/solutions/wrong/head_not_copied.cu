// BUG: the float4 part starts at the first 16-byte boundary, but the 0-3
// floats before it are skipped.
extern "C" __global__ void vector_copy(const float* in, float* out, int N, int offset) {
    const float* src = in + offset;
    float* dst = out + offset;
    unsigned mis = (unsigned)(reinterpret_cast<unsigned long long>(src) & 15ull);
    int head = min(N, (int)(((16u - mis) & 15u) >> 2));
    int n4 = (N - head) >> 2;
    const float4* s4 = reinterpret_cast<const float4*>(src + head);
    float4* d4 = reinterpret_cast<float4*>(dst + head);
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = tid; i < n4; i += gridDim.x * blockDim.x) d4[i] = s4[i];
    int tail = head + 4 * n4;
    if (tid < N - tail) dst[tail + tid] = src[tail + tid];
}
