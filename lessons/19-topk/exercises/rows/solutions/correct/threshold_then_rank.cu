// Same bar as a bitonic top-k (the k-th largest of the threads' maxima), but the
// candidates are not sorted: each one's place is the number of candidates whose
// key is larger (keys never tie), and the first k places are written.
typedef unsigned long long u64;
#define CAP 4096  // 64 threads' stripes of at most 64 columns (vocab <= 65536, 1024 threads)

__device__ __forceinline__ unsigned ordered(float f) {  // a < b  <=>  ordered(a) < ordered(b)
    unsigned u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ float unordered(unsigned k) {
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}
__device__ __forceinline__ u64 make_key(float v, int c) {
    return ((u64)ordered(v) << 32) | (0xffffffffu - (unsigned)c);
}
// Sort a[0..n) into descending order; n a power of two. Ends with a barrier.
__device__ void bitonic_desc(u64* a, int n) {
    for (int size = 2; size <= n; size <<= 1)
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int i = threadIdx.x; i < n / 2; i += blockDim.x) {
                int lo = 2 * stride * (i / stride) + i % stride, hi = lo + stride;
                bool desc = (lo & size) == 0;  // the last merge (size == n) is all descending
                u64 x = a[lo], y = a[hi];
                if ((x < y) == desc) { a[lo] = y; a[hi] = x; }
            }
            __syncthreads();
        }
}

extern "C" __global__ void topk(const float* logits, float* values, int* indices, int rows, int vocab, int k) {
    __shared__ u64 buf[CAP];
    __shared__ int count;
    const float* xr = logits + (size_t)blockIdx.x * vocab;
    const int nt = blockDim.x, tid = threadIdx.x;
    u64 best = 0;  // below every real key
    for (int c = tid; c < vocab; c += nt) {
        u64 key = make_key(xr[c], c);
        best = key > best ? key : best;
    }
    buf[tid] = best;
    if (tid == 0) count = 0;
    __syncthreads();
    bitonic_desc(buf, nt);
    const u64 bar = buf[k - 1];  // k <= vocab and k <= blockDim.x: a real key
    __syncthreads();             // everyone has read bar before buf is refilled
    if (best >= bar)
        for (int c = tid; c < vocab; c += nt) {
            u64 key = make_key(xr[c], c);
            if (key >= bar) buf[atomicAdd(&count, 1)] = key;
        }
    __syncthreads();
    const int n = count;
    for (int i = tid; i < n; i += nt) {
        u64 key = buf[i];
        int place = 0;
        for (int j = 0; j < n; ++j) place += buf[j] > key;
        if (place < k) {
            size_t o = (size_t)blockIdx.x * k + place;
            values[o] = unordered((unsigned)(key >> 32));
            indices[o] = (int)(0xffffffffu - (unsigned)key);
        }
    }
}
