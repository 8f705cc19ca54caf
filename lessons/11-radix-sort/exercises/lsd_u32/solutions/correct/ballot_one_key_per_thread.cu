// Correct: one key per thread per step of 256 keys; peers found with 8
// ballots, warp counts per digit in shared memory, prefix over the 8 warps by
// the thread of each digit; the histogram scan uses a tiled block scan.
#define THREADS 256
#define TILE 1024
#define WARPS (THREADS / 32)
#define RADIX 256

__device__ void block_range(int N, int* begin, int* end) {
    int per_block = (N + gridDim.x - 1) / gridDim.x;
    per_block = (per_block + TILE - 1) / TILE * TILE;
    *begin = min(N, (int)blockIdx.x * per_block);
    *end = min(N, *begin + per_block);
}

__device__ unsigned digit_of(unsigned key, int shift) { return (key >> shift) & (RADIX - 1); }

extern "C" __global__ void digit_histogram(const unsigned int* keys, unsigned int* hist, int N, int shift) {
    __shared__ unsigned counts[WARPS][RADIX];          // one histogram per warp: fewer collisions
    int begin, end;
    block_range(N, &begin, &end);
    int warp = threadIdx.x / 32;
    for (int w = 0; w < WARPS; ++w) counts[w][threadIdx.x] = 0;
    __syncthreads();
    for (int i = begin + threadIdx.x; i < end; i += THREADS) atomicAdd(&counts[warp][digit_of(keys[i], shift)], 1u);
    __syncthreads();
    unsigned total = 0;
    for (int w = 0; w < WARPS; ++w) total += counts[w][threadIdx.x];
    hist[threadIdx.x * gridDim.x + blockIdx.x] = total;
}

// 1024 counters at a time: load, scan in shared memory (Hillis-Steele), carry on.
extern "C" __global__ void scan_histogram(unsigned int* hist, int num_blocks) {
    __shared__ unsigned buffer[2][1024];
    __shared__ unsigned carry;
    int t = threadIdx.x, total = RADIX * num_blocks;
    if (t == 0) carry = 0;
    for (int base = 0; base < total; base += 1024) {
        int i = base + t;
        unsigned mine = i < total ? hist[i] : 0u;
        int src = 0;
        buffer[0][t] = mine;
        __syncthreads();
        for (int offset = 1; offset < 1024; offset <<= 1) {
            buffer[1 - src][t] = t >= offset ? buffer[src][t] + buffer[src][t - offset] : buffer[src][t];
            __syncthreads();
            src = 1 - src;
        }
        unsigned inclusive = buffer[src][t];
        if (i < total) hist[i] = carry + inclusive - mine;
        __syncthreads();
        if (t == 1023) carry += inclusive;
        __syncthreads();
    }
}

extern "C" __global__ void scatter_digits(const unsigned int* keys_in, const unsigned int* hist,
                                          unsigned int* keys_out, int N, int shift) {
    __shared__ unsigned warp_start[WARPS][RADIX];
    __shared__ unsigned digit_next[RADIX];
    int begin, end;
    block_range(N, &begin, &end);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    digit_next[threadIdx.x] = hist[threadIdx.x * gridDim.x + blockIdx.x];
    for (int base = begin; base < end; base += THREADS) {
        for (int w = 0; w < WARPS; ++w) warp_start[w][threadIdx.x] = 0;
        __syncthreads();
        int i = base + threadIdx.x;
        bool valid = i < end;
        unsigned key = valid ? keys_in[i] : 0u;
        unsigned d = digit_of(key, shift);
        unsigned peers = __ballot_sync(0xffffffff, valid);
        for (int bit = 0; bit < 8; ++bit) {
            unsigned ones = __ballot_sync(0xffffffff, (d >> bit) & 1u);
            peers &= ((d >> bit) & 1u) ? ones : ~ones;
        }
        unsigned below = peers & ((1u << lane) - 1u);
        if (valid && below == 0) warp_start[warp][d] = __popc(peers);   // the lowest peer
        __syncthreads();
        unsigned running = digit_next[threadIdx.x];    // thread = digit
        for (int w = 0; w < WARPS; ++w) {
            unsigned c = warp_start[w][threadIdx.x];
            warp_start[w][threadIdx.x] = running;
            running += c;
        }
        digit_next[threadIdx.x] = running;
        __syncthreads();
        if (valid) keys_out[warp_start[warp][d] + __popc(below)] = key;
        __syncthreads();
    }
}
