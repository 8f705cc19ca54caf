// Every logit becomes one 64-bit key: its float bits made order-preserving,
// above the inverted column. Keys never tie, so the argmax is a plain max of
// integers, reduced through a shared-memory tree.
typedef unsigned long long u64;

__device__ u64 make_key(float v, int c) {
    unsigned u = __float_as_uint(v);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return ((u64)u << 32) | (0xffffffffu - (unsigned)c);
}

extern "C" __global__ void argmax(const float* logits, int* index, float* value, int rows, int vocab) {
    __shared__ u64 best[1024];
    const float* xr = logits + (size_t)blockIdx.x * vocab;
    u64 mine = 0;
    for (int c = threadIdx.x; c < vocab; c += blockDim.x) {
        u64 key = make_key(xr[c], c);
        if (key > mine) mine = key;
    }
    best[threadIdx.x] = mine;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half && best[threadIdx.x + half] > best[threadIdx.x])
            best[threadIdx.x] = best[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        int col = (int)(0xffffffffu - (unsigned)best[0]);
        index[blockIdx.x] = col;
        value[blockIdx.x] = xr[col];
    }
}
