// Candidate for bench/candidates.py: the lsd_u32 reference with ITEMS and PREFETCH as -D options.
// LSD radix sort of uint32 keys: 4 passes of 8 bits, lowest digit first.
// Each pass is 3 launches of this plan (shift = 0, 8, 16, 24):
//   digit_histogram<<<G, 256>>>   hist[d * G + b] = how many keys of block b have digit d
//   scan_histogram<<<1, 1024>>>   hist becomes its exclusive prefix sum (digit-major)
//   scatter_digits<<<G, 256>>>    each key to hist[d * G + b] + its stable rank
// with G = min(ceil_div(N, 1024), 512). Passes go keys -> tmp -> out -> tmp -> out.
//
// The scatter sorts each tile of ITEMS * 256 keys by digit in shared memory
// first (a warp ranks its keys with __match_any_sync; a block-wide scan over
// the digits places every warp's run), so each digit's keys leave the block
// as one run of consecutive addresses. The counters are scanned by 32 warps at
// once, each over its own slice, with no barrier inside the loop.
#define THREADS 256
#ifndef ITEMS
#define ITEMS 16                    // keys per thread per tile
#endif
#ifndef PREFETCH
#define PREFETCH 0
#endif
#define TILE (THREADS * ITEMS)      // 4096 keys a block sorts at a time
#define WARPS (THREADS / 32)
#define RADIX 256

// Block b owns keys[begin, end): a run of whole tiles, the same in every kernel.
__device__ void block_range(int N, int* begin, int* end) {
    int per_block = (N + gridDim.x - 1) / gridDim.x;
    per_block = (per_block + TILE - 1) / TILE * TILE;
    *begin = min(N, (int)blockIdx.x * per_block);
    *end = min(N, *begin + per_block);
}

__device__ __forceinline__ unsigned digit_of(unsigned key, int shift) { return (key >> shift) & (RADIX - 1); }

__device__ __forceinline__ unsigned warp_inclusive_scan(unsigned v) {
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        unsigned up = __shfl_up_sync(0xffffffff, v, offset);
        if (lane >= offset) v += up;
    }
    return v;
}

extern "C" __global__ void __launch_bounds__(THREADS) digit_histogram(const unsigned int* keys, unsigned int* hist,
                                                                   int N, int shift) {
    int begin, end;
    block_range(N, &begin, &end);
    __shared__ unsigned counts[WARPS][RADIX];        // one histogram per warp
    int warp = threadIdx.x / 32;
    for (int w = 0; w < WARPS; ++w) counts[w][threadIdx.x] = 0;
    __syncthreads();
    // begin is a multiple of TILE: whole uint4s up to the last complete one
    const uint4* keys4 = reinterpret_cast<const uint4*>(keys + begin);
    int quads = (end - begin) / 4;
    int q = threadIdx.x;
    for (; q + 3 * THREADS < quads; q += 4 * THREADS) {   // 4 loads in flight
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = __ldcs(keys4 + q + u * THREADS);
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            atomicAdd(&counts[warp][digit_of(v[u].x, shift)], 1u);
            atomicAdd(&counts[warp][digit_of(v[u].y, shift)], 1u);
            atomicAdd(&counts[warp][digit_of(v[u].z, shift)], 1u);
            atomicAdd(&counts[warp][digit_of(v[u].w, shift)], 1u);
        }
    }
    for (; q < quads; q += THREADS) {
        uint4 v = keys4[q];
        atomicAdd(&counts[warp][digit_of(v.x, shift)], 1u);
        atomicAdd(&counts[warp][digit_of(v.y, shift)], 1u);
        atomicAdd(&counts[warp][digit_of(v.z, shift)], 1u);
        atomicAdd(&counts[warp][digit_of(v.w, shift)], 1u);
    }
    int i = begin + 4 * quads + threadIdx.x;         // the 0-3 keys after the last uint4
    if (i < end) atomicAdd(&counts[warp][digit_of(keys[i], shift)], 1u);
    __syncthreads();
    unsigned total = 0;
    for (int w = 0; w < WARPS; ++w) total += counts[w][threadIdx.x];
    hist[threadIdx.x * gridDim.x + blockIdx.x] = total;
}

// 1024 threads: warp w scans its own slice of the 256 * num_blocks counters
// (in uint4s), after one pass that sums each slice and a scan of the 32 sums.
extern "C" __global__ void scan_histogram(unsigned int* hist, int num_blocks) {
    __shared__ unsigned slice_start[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    uint4* hist4 = reinterpret_cast<uint4*>(hist);
    int per_warp = 2 * num_blocks;                   // 64 * num_blocks uint4s over 32 warps
    int first = warp * per_warp, last = first + per_warp;
    unsigned sum = 0;
    for (int q = first + lane; q < last; q += 32) {
        uint4 v = hist4[q];
        sum += v.x + v.y + v.z + v.w;
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, offset);
    if (lane == 0) slice_start[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        unsigned total = slice_start[lane];
        unsigned inclusive = warp_inclusive_scan(total);
        slice_start[lane] = inclusive - total;
    }
    __syncthreads();
    unsigned carry = slice_start[warp];
    for (int base = first; base < last; base += 32) {
        int q = base + lane;
        uint4 v = q < last ? hist4[q] : make_uint4(0u, 0u, 0u, 0u);
        unsigned s = v.x + v.y + v.z + v.w;
        unsigned inclusive = warp_inclusive_scan(s);
        unsigned run = carry + inclusive - s;
        uint4 o;
        o.x = run;
        run += v.x;
        o.y = run;
        run += v.y;
        o.z = run;
        run += v.z;
        o.w = run;
        if (q < last) hist4[q] = o;
        carry += __shfl_sync(0xffffffff, inclusive, 31);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, 4) scatter_digits(const unsigned int* keys_in, const unsigned int* hist,
                                                                  unsigned int* keys_out, int N, int shift) {
    __shared__ unsigned sorted[TILE];                // the tile, in digit order
    __shared__ unsigned warp_offset[WARPS][RADIX];   // counts, then where a warp's run of digit d starts
    __shared__ unsigned out_base[RADIX];             // global slot of sorted[k] is out_base[d] + k
    __shared__ unsigned warp_sums[WARPS];
    int begin, end;
    block_range(N, &begin, &end);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned lanes_below = (1u << lane) - 1u;
    const unsigned d_own = threadIdx.x;              // THREADS == RADIX: thread d owns digit d
    unsigned next = hist[d_own * gridDim.x + blockIdx.x];   // global slot of the block's next key of digit d
#if PREFETCH
    unsigned ahead[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        int i = begin + warp * 32 * ITEMS + lane + j * 32;
        ahead[j] = i < end ? __ldcs(keys_in + i) : 0xffffffffu;
    }
#endif
    for (int base = begin; base < end; base += TILE) {
        // warp w ranks keys [w * 32 * ITEMS, (w + 1) * 32 * ITEMS) of the tile, in order
        const int first = base + warp * 32 * ITEMS + lane;
        unsigned key[ITEMS], rank[ITEMS];
#if PREFETCH
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            key[j] = ahead[j];
            int i = first + TILE + j * 32;           // the next tile's keys, in flight meanwhile
            ahead[j] = i < end ? __ldcs(keys_in + i) : 0xffffffffu;
        }
#else
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            int i = first + j * 32;
            key[j] = i < end ? __ldcs(keys_in + i) : 0xffffffffu;
        }
#endif
#pragma unroll
        for (int d = lane; d < RADIX; d += 32) warp_offset[warp][d] = 0;
        __syncwarp();
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const bool valid = first + j * 32 < end;
            const unsigned d = valid ? digit_of(key[j], shift) : RADIX;   // a digit of its own
            const unsigned peers = __match_any_sync(0xffffffff, d);
            const int leader = 31 - __clz(peers);    // the last peer adds the group's count
            unsigned before = 0;
            if (valid && lane == leader) {
                before = warp_offset[warp][d];
                warp_offset[warp][d] = before + __popc(peers);
            }
            before = __shfl_sync(0xffffffff, before, leader);
            rank[j] = before + __popc(peers & lanes_below);
            __syncwarp();
        }
        __syncthreads();
        // thread d: digit d's count in each warp -> where each warp's run starts
        unsigned count = 0;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            unsigned c = warp_offset[w][d_own];
            warp_offset[w][d_own] = count;
            count += c;
        }
        const unsigned inclusive = warp_inclusive_scan(count);
        if (lane == 31) warp_sums[warp] = inclusive;
        __syncthreads();
        unsigned start = inclusive - count;          // where digit d starts in the sorted tile
        for (int w = 0; w < warp; ++w) start += warp_sums[w];
#pragma unroll
        for (int w = 0; w < WARPS; ++w) warp_offset[w][d_own] += start;
        out_base[d_own] = next - start;
        next += count;
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; ++j)
            if (first + j * 32 < end) sorted[warp_offset[warp][digit_of(key[j], shift)] + rank[j]] = key[j];
        __syncthreads();
        const int tile_keys = min(TILE, end - base);
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {            // in digit order: each digit a run of slots
            const int k = j * THREADS + threadIdx.x;
            if (k < tile_keys) {
                const unsigned sorted_key = sorted[k];
                __stcs(keys_out + out_base[digit_of(sorted_key, shift)] + k, sorted_key);
            }
        }
        // no barrier here: sorted, warp_offset and out_base are next written after the next tile's first barrier
    }
}
