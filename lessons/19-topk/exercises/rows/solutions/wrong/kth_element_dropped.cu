// BUG: the k-th element is dropped: only k - 1 threads write their place.
// Top-k per row (values descending, ties: lower column first), one block per row.
// Every logit becomes a 64-bit key: an order-preserving image of its float
// bits above the inverted column. Keys are all different and "larger key"
// means "comes first", so ties need no special case.
//   1. each thread finds its best key over its stripe of columns;
//   2. the block sorts those blockDim.x maxima (bitonic, shared memory): the
//      k-th of them, `bar`, is at most the row's k-th key, so the top k are
//      among the keys >= bar, and only the k threads whose best is >= bar
//      hold any: at most k * ceil(vocab / blockDim.x) <= 4096 candidates;
//   3. those threads append their candidates (shared atomic counter), the
//      block sorts the candidates and writes the first k.
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
    int n2 = 1;
    while (n2 < n) n2 <<= 1;
    for (int i = n + tid; i < n2; i += nt) buf[i] = 0;
    __syncthreads();
    bitonic_desc(buf, n2);
    if (tid < k - 1) {
        u64 key = buf[tid];
        size_t o = (size_t)blockIdx.x * k + tid;
        values[o] = unordered((unsigned)(key >> 32));
        indices[o] = (int)(0xffffffffu - (unsigned)key);
    }
}
