// Correct, without warp intrinsics: a tile of 256 keys goes to shared memory,
// and each thread's rank is the number of keys with its digit at lower
// positions of the tile (256 comparisons: slow, but plainly stable).
#define THREADS 256
#define TILE 1024
#define RADIX 256

__device__ void block_range(int N, int* begin, int* end) {
    int per_block = (N + gridDim.x - 1) / gridDim.x;
    per_block = (per_block + TILE - 1) / TILE * TILE;
    *begin = min(N, (int)blockIdx.x * per_block);
    *end = min(N, *begin + per_block);
}

__device__ unsigned digit_of(unsigned key, int shift) { return (key >> shift) & (RADIX - 1); }

extern "C" __global__ void digit_histogram(const unsigned int* keys, unsigned int* hist, int N, int shift) {
    __shared__ unsigned counts[RADIX];
    int begin, end;
    block_range(N, &begin, &end);
    counts[threadIdx.x] = 0;
    __syncthreads();
    for (int i = begin + threadIdx.x; i < end; i += THREADS) atomicAdd(&counts[digit_of(keys[i], shift)], 1u);
    __syncthreads();
    hist[threadIdx.x * gridDim.x + blockIdx.x] = counts[threadIdx.x];
}

// One thread walks all 256 * num_blocks counters: at most 131072 additions.
extern "C" __global__ void scan_histogram(unsigned int* hist, int num_blocks) {
    if (threadIdx.x != 0) return;
    unsigned running = 0;
    for (int i = 0; i < RADIX * num_blocks; ++i) {
        unsigned c = hist[i];
        hist[i] = running;
        running += c;
    }
}

extern "C" __global__ void scatter_digits(const unsigned int* keys_in, const unsigned int* hist,
                                          unsigned int* keys_out, int N, int shift) {
    __shared__ unsigned tile_digit[THREADS];
    __shared__ unsigned digit_next[RADIX];
    int begin, end;
    block_range(N, &begin, &end);
    digit_next[threadIdx.x] = hist[threadIdx.x * gridDim.x + blockIdx.x];
    for (int base = begin; base < end; base += THREADS) {
        int i = base + threadIdx.x;
        bool valid = i < end;
        unsigned key = valid ? keys_in[i] : 0u;
        unsigned d = digit_of(key, shift);
        tile_digit[threadIdx.x] = valid ? d : RADIX;   // RADIX: no key here
        __syncthreads();
        unsigned rank = 0;
        for (int t = 0; t < (int)threadIdx.x; ++t) rank += tile_digit[t] == d;
        if (valid) keys_out[digit_next[d] + rank] = key;
        __syncthreads();
        unsigned mine = 0;                             // thread d counts digit d in the tile
        for (int t = 0; t < THREADS; ++t) mine += tile_digit[t] == threadIdx.x;
        digit_next[threadIdx.x] += mine;
        __syncthreads();
    }
}
