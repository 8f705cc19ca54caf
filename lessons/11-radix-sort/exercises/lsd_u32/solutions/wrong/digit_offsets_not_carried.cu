// BUG: the per-digit offsets are not advanced after a tile, so the next tile of the
// block writes its keys of each digit over those of the tile before.
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
    // Warp w of a tile owns the 32 * ITEMS consecutive keys from w * 32 * ITEMS on,
    // so tile order = warp order, and inside a warp = item order, then lane order.
    __shared__ unsigned warp_counts[WARPS][RADIX];   // per tile: keys of each digit per warp
    __shared__ unsigned digit_next[RADIX];           // where this block's next key of digit d goes
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned lanes_below = (1u << lane) - 1u;
    digit_next[threadIdx.x] = hist[threadIdx.x * gridDim.x + blockIdx.x];
    for (int base = begin; base < end; base += TILE) {
        __syncwarp();   // the lanes have read the last tile's offsets
        for (int d = lane; d < RADIX; d += 32) warp_counts[warp][d] = 0;
        __syncwarp();
        unsigned key[ITEMS], rank[ITEMS];
        bool valid[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            int i = base + (warp * ITEMS + j) * 32 + lane;
            valid[j] = i < end;
            key[j] = valid[j] ? keys_in[i] : 0u;
        }
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            unsigned d = digit_of(key[j], shift);
            // peers: the lanes whose key has my digit, found one bit at a time
            unsigned peers = __ballot_sync(0xffffffff, valid[j]);
#pragma unroll
            for (int bit = 0; bit < 8; ++bit) {
                unsigned ones = __ballot_sync(0xffffffff, (d >> bit) & 1u);
                peers &= ((d >> bit) & 1u) ? ones : ~ones;
            }
            unsigned before = valid[j] ? warp_counts[warp][d] : 0u;
            __syncwarp();
            if (valid[j] && (peers & lanes_below) == 0) warp_counts[warp][d] = before + __popc(peers);
            __syncwarp();
            rank[j] = before + __popc(peers & lanes_below);
        }
        __syncthreads();
        {   // thread d: the warps' counts of digit d become their starting offsets
            unsigned d = threadIdx.x, running = digit_next[d];
            for (int w = 0; w < WARPS; ++w) {
                unsigned c = warp_counts[w][d];
                warp_counts[w][d] = running;
                running += c;
            }
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; ++j)
            if (valid[j]) keys_out[warp_counts[warp][digit_of(key[j], shift)] + rank[j]] = key[j];
    }
    // END FILL-IN
}
