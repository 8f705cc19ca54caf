// BUG: one float4 per thread; past 1056 x 256 float4s the capped grid stops
// and the rest of the view is never copied.
extern "C" __global__ void vector_copy(const float* in, float* out, int N, int offset) {
    const float* src = in + offset;
    float* dst = out + offset;
    unsigned mis = (unsigned)(reinterpret_cast<unsigned long long>(src) & 15ull);
    int head = min(N, (int)(((16u - mis) & 15u) >> 2));
    int n4 = (N - head) >> 2;
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n4) reinterpret_cast<float4*>(dst + head)[tid] = reinterpret_cast<const float4*>(src + head)[tid];
    int tail = head + 4 * n4;
    if (tid < head) dst[tid] = src[tid];
    if (tid < N - tail) dst[tail + tid] = src[tail + tid];
}
