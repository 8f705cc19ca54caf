// k rounds of a block-wide argmax: round j finds the largest key below the one
// found in round j - 1. A key is the value's order-preserving bits above the
// inverted column, so keys never tie and the lower column wins equal values.
// k passes over the row: simple, and slow for large k.
typedef unsigned long long u64;

__device__ u64 make_key(float v, int c) {
    unsigned u = __float_as_uint(v);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return ((u64)u << 32) | (0xffffffffu - (unsigned)c);
}

extern "C" __global__ void topk(const float* logits, float* values, int* indices, int rows, int vocab, int k) {
    __shared__ u64 best[1024];
    const float* xr = logits + (size_t)blockIdx.x * vocab;
    u64 prev = ~0ull;  // above every key
    for (int j = 0; j < k; ++j) {
        u64 mine = 0;
        for (int c = threadIdx.x; c < vocab; c += blockDim.x) {
            u64 key = make_key(xr[c], c);
            if (key < prev && key > mine) mine = key;
        }
        best[threadIdx.x] = mine;
        __syncthreads();
        for (int half = blockDim.x / 2; half > 0; half /= 2) {
            if (threadIdx.x < half && best[threadIdx.x + half] > best[threadIdx.x])
                best[threadIdx.x] = best[threadIdx.x + half];
            __syncthreads();
        }
        prev = best[0];
        __syncthreads();  // best[0] is read by all before the next round overwrites it
        if (threadIdx.x == 0) {
            int col = (int)(0xffffffffu - (unsigned)prev);
            values[(size_t)blockIdx.x * k + j] = xr[col];
            indices[(size_t)blockIdx.x * k + j] = col;
        }
    }
}
