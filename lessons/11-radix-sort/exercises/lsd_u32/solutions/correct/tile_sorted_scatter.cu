// Correct, and written after the H100 run to move less (not timed yet): the
// counters are scanned 4096 at a time with one coalesced 16-byte load per
// thread, the next step's load in flight; the scatter sorts each tile by digit
// in shared memory first, so each digit's keys leave as consecutive writes.
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
}

extern "C" __global__ void scan_histogram(unsigned int* hist, int num_blocks) {
    __shared__ unsigned warp_totals[32];
    int quads = RADIX * num_blocks / 4;          // 256 * num_blocks counters: whole uint4s
    uint4* hist4 = reinterpret_cast<uint4*>(hist);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned carry = 0;                          // the total of the steps before
    uint4 v = (int)threadIdx.x < quads ? hist4[threadIdx.x] : make_uint4(0u, 0u, 0u, 0u);
    for (int base = 0; base < quads; base += blockDim.x) {
        int i = base + threadIdx.x;
        int ahead = i + blockDim.x;
        uint4 next = ahead < quads ? hist4[ahead] : make_uint4(0u, 0u, 0u, 0u);
        unsigned sum = v.x + v.y + v.z + v.w;
        unsigned inclusive = warp_inclusive_scan(sum);
        if (lane == 31) warp_totals[warp] = inclusive;
        __syncthreads();
        if (warp == 0) warp_totals[lane] = warp_inclusive_scan(warp_totals[lane]);
        __syncthreads();
        unsigned run = carry + (warp == 0 ? 0u : warp_totals[warp - 1]) + inclusive - sum;
        uint4 out;
        out.x = run;
        run += v.x;
        out.y = run;
        run += v.y;
        out.z = run;
        run += v.z;
        out.w = run;
        if (i < quads) hist4[i] = out;
        carry += warp_totals[31];                // blockDim.x == 1024: 32 warps
        __syncthreads();                         // warp_totals is rewritten by the next step
        v = next;
    }
}

extern "C" __global__ void scatter_digits(const unsigned int* keys_in, const unsigned int* hist,
                                          unsigned int* keys_out, int N, int shift) {
    __shared__ unsigned warp_counts[WARPS][RADIX];   // per tile: counts, then offsets inside the digit
    __shared__ unsigned digit_next[RADIX];           // global slot of this block's next key of digit d
    __shared__ unsigned tile_start[RADIX];           // where digit d starts in the sorted tile
    __shared__ unsigned sorted[TILE];
    __shared__ unsigned warp_sums[WARPS];
    int begin, end;
    block_range(N, &begin, &end);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned lanes_below = (1u << lane) - 1u;
    digit_next[threadIdx.x] = hist[threadIdx.x * gridDim.x + blockIdx.x];
    for (int base = begin; base < end; base += TILE) {
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
        unsigned d = threadIdx.x, count = 0;         // thread d: digit d of this tile
        for (int w = 0; w < WARPS; ++w) {
            unsigned c = warp_counts[w][d];
            warp_counts[w][d] = count;
            count += c;
        }
        unsigned inclusive = warp_inclusive_scan(count);
        if (lane == 31) warp_sums[warp] = inclusive;
        __syncthreads();
        unsigned start = inclusive - count;
        for (int w = 0; w < warp; ++w) start += warp_sums[w];
        tile_start[d] = start;
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            unsigned dj = digit_of(key[j], shift);
            if (valid[j]) sorted[tile_start[dj] + warp_counts[warp][dj] + rank[j]] = key[j];
        }
        __syncthreads();
        int tile_keys = min(TILE, end - base);
        for (int k = threadIdx.x; k < tile_keys; k += THREADS) {   // in digit order: runs of slots
            unsigned sorted_key = sorted[k];
            unsigned dk = digit_of(sorted_key, shift);
            keys_out[digit_next[dk] + (k - tile_start[dk])] = sorted_key;
        }
        __syncthreads();
        digit_next[d] += count;
    }
}
