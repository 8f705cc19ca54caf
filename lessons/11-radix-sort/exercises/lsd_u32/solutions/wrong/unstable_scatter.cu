// BUG: each key takes its slot with atomicAdd on a per-digit counter in shared
// memory, so keys with the same digit land in the order threads run, and the
// order the earlier passes built is lost.
// LSD radix sort of uint32 keys: 4 passes of 8 bits, lowest digit first.
// Each pass is 3 launches of this plan (shift = 0, 8, 16, 24):
//   digit_histogram<<<G, 256>>>   hist[d * G + b] = how many keys of block b have digit d
//   scan_histogram<<<1, 1024>>>   hist becomes its exclusive prefix sum (digit-major)
//   scatter_digits<<<G, 256>>>    each key to hist[d * G + b] + its stable rank
// with G = min(ceil_div(N, 1024), 512). Passes go keys -> tmp -> out -> tmp -> out.
#define THREADS 256
#define ITEMS 4                     // keys per thread per tile
#define TILE (THREADS * ITEMS)      // 1024 keys a block handles at a time
#define WARPS (THREADS / 32)
#define RADIX 256

// Block b owns keys[begin, end): a run of whole tiles, the same in every kernel.
__device__ void block_range(int N, int* begin, int* end) {
    int per_block = (N + gridDim.x - 1) / gridDim.x;
    per_block = (per_block + TILE - 1) / TILE * TILE;
    *begin = min(N, (int)blockIdx.x * per_block);
    *end = min(N, *begin + per_block);
}

__device__ unsigned digit_of(unsigned key, int shift) { return (key >> shift) & (RADIX - 1); }

// FILL-IN: helper functions, if you want them
__device__ unsigned warp_inclusive_scan(unsigned v) {
    int lane = threadIdx.x % 32;
    for (int offset = 1; offset < 32; offset <<= 1) {
        unsigned up = __shfl_up_sync(0xffffffff, v, offset);
        if (lane >= offset) v += up;
    }
    return v;
}

extern "C" __global__ void digit_histogram(const unsigned int* keys, unsigned int* hist, int N, int shift) {
    int begin, end;
    block_range(N, &begin, &end);
    // BEGIN FILL-IN
    __shared__ unsigned counts[RADIX];
    counts[threadIdx.x] = 0;                 // THREADS == RADIX: one counter each
    __syncthreads();
    for (int base = begin; base < end; base += TILE) {
        unsigned key[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {    // ITEMS independent loads in flight
            int i = base + j * THREADS + threadIdx.x;
            key[j] = i < end ? keys[i] : 0u;
        }
#pragma unroll
        for (int j = 0; j < ITEMS; ++j)
            if (base + j * THREADS + (int)threadIdx.x < end) atomicAdd(&counts[digit_of(key[j], shift)], 1u);
    }
    __syncthreads();
    hist[threadIdx.x * gridDim.x + blockIdx.x] = counts[threadIdx.x];
    // END FILL-IN
}

extern "C" __global__ void scan_histogram(unsigned int* hist, int num_blocks) {
    // BEGIN FILL-IN
    // 256 * num_blocks counters: each thread scans its own contiguous run, then
    // the 1024 run totals are scanned across the block.
    __shared__ unsigned warp_totals[32];
    int total = RADIX * num_blocks;
    int per_thread = (total + blockDim.x - 1) / blockDim.x;
    int first = min(total, (int)threadIdx.x * per_thread);
    int last = min(total, first + per_thread);
    unsigned sum = 0;
    for (int i = first; i < last; ++i) sum += hist[i];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned inclusive = warp_inclusive_scan(sum);
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) warp_totals[lane] = warp_inclusive_scan(warp_totals[lane]);
    __syncthreads();
    unsigned running = (warp == 0 ? 0u : warp_totals[warp - 1]) + inclusive - sum;
    for (int i = first; i < last; ++i) {
        unsigned c = hist[i];
        hist[i] = running;
        running += c;
    }
    // END FILL-IN
}

extern "C" __global__ void scatter_digits(const unsigned int* keys_in, const unsigned int* hist,
                                          unsigned int* keys_out, int N, int shift) {
    int begin, end;
    block_range(N, &begin, &end);
    // BEGIN FILL-IN
    __shared__ unsigned digit_next[RADIX];           // where this block's next key of digit d goes
    digit_next[threadIdx.x] = hist[threadIdx.x * gridDim.x + blockIdx.x];
    __syncthreads();
    for (int i = begin + threadIdx.x; i < end; i += THREADS) {
        unsigned key = keys_in[i];
        keys_out[atomicAdd(&digit_next[digit_of(key, shift)], 1u)] = key;
    }
    // END FILL-IN
}
