// Reference: a warp per row. When K is a multiple of 4 every row starts on a
// 16-byte boundary, so the lanes read float4s (a warp moves 512 consecutive
// bytes per load) with two loads in flight per lane; otherwise one float per
// lane per step. x is small and shared by every row: it stays in the caches.
extern "C" __global__ void gemv(const float* __restrict__ A, const float* __restrict__ x,
                                float* __restrict__ y, int M, int K) {
    const int row = blockIdx.x * 8 + threadIdx.x / 32;
    if (row >= M) return;
    const int lane = threadIdx.x % 32;
    // this block's range of K, a multiple of 4 long so float4s stay aligned
    const int chunk = ((K + gridDim.y - 1) / gridDim.y + 3) & ~3;
    const int k_begin = blockIdx.y * chunk;
    const int k_end = min(K, k_begin + chunk);
    const float* a = A + (size_t)row * K;
    float sum = 0.0f;
    if ((K & 3) == 0) {
        const float4* a4 = reinterpret_cast<const float4*>(a);
        const float4* x4 = reinterpret_cast<const float4*>(x);
        const int end4 = k_end / 4;
        int k = k_begin / 4 + lane;
        for (; k + 32 < end4; k += 64) {           // two independent loads per step
            const float4 p = __ldg(a4 + k), q = __ldg(a4 + k + 32);
            const float4 u = __ldg(x4 + k), v = __ldg(x4 + k + 32);
            sum += p.x * u.x + p.y * u.y + p.z * u.z + p.w * u.w;
            sum += q.x * v.x + q.y * v.y + q.z * v.z + q.w * v.w;
        }
        if (k < end4) {
            const float4 p = __ldg(a4 + k), u = __ldg(x4 + k);
            sum += p.x * u.x + p.y * u.y + p.z * u.z + p.w * u.w;
        }
    } else {
        for (int k = k_begin + lane; k < k_end; k += 32) sum += __ldg(a + k) * __ldg(x + k);
    }
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane == 0 && k_begin < k_end) atomicAdd(y + row, sum);   // other ranges add to the same row
}
