// BUG: the slot where the next tile starts is never carried over: every tile of a
// block writes from the block's offset again, over the tile before it.
// Compaction: out[0..count) = the elements of `in` greater than `threshold`,
// in their input order; count[0] = how many. out starts zeroed.
// Launch plan (fixed): count_kept<<<G, 256>>>, scan_counts<<<1, 1024>>>,
// scatter_kept<<<G, 256>>> with G = min(ceil_div(N, 1024), 1024) blocks.
#define THREADS 256
#define ITEMS 4                     // elements per thread per tile
#define TILE (THREADS * ITEMS)      // 1024 elements a block handles at a time
#define WARPS (THREADS / 32)

// Block b owns in[begin, end): a run of whole tiles, the same in both kernels,
// so the offset the scan gives block b is where its first kept element goes.
__device__ void block_range(int N, int* begin, int* end) {
    int per_block = (N + gridDim.x - 1) / gridDim.x;
    per_block = (per_block + TILE - 1) / TILE * TILE;
    *begin = min(N, (int)blockIdx.x * per_block);
    *end = min(N, *begin + per_block);
}

// FILL-IN: helper functions, if you want them
__device__ int warp_inclusive_scan(int v) {
    int lane = threadIdx.x % 32;
    for (int offset = 1; offset < 32; offset <<= 1) {
        int up = __shfl_up_sync(0xffffffff, v, offset);
        if (lane >= offset) v += up;
    }
    return v;
}

// Phase 1: how many elements of its range each block keeps.
extern "C" __global__ void count_kept(const float* in, int* block_counts, int N, float threshold) {
    int begin, end;
    block_range(N, &begin, &end);
    // BEGIN FILL-IN
    __shared__ int warp_totals[WARPS];
    int kept = 0;
    for (int base = begin; base < end; base += TILE) {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {   // ITEMS independent loads in flight
            int i = base + j * THREADS + threadIdx.x;
            kept += (i < end && in[i] > threshold) ? 1 : 0;
        }
    }
    for (int offset = 16; offset > 0; offset >>= 1)
        kept += __shfl_down_sync(0xffffffff, kept, offset);
    if (threadIdx.x % 32 == 0) warp_totals[threadIdx.x / 32] = kept;
    __syncthreads();
    if (threadIdx.x == 0) {
        int total = 0;
        for (int w = 0; w < WARPS; ++w) total += warp_totals[w];
        block_counts[blockIdx.x] = total;
    }
    // END FILL-IN
}

// Phase 2: one block of 1024 threads turns the counts into exclusive offsets
// (in place) and writes the total to count[0].
extern "C" __global__ void scan_counts(int* block_counts, int* count, int num_blocks) {
    // BEGIN FILL-IN
    __shared__ int warp_totals[32];
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int mine = t < num_blocks ? block_counts[t] : 0;
    int inclusive = warp_inclusive_scan(mine);
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) warp_totals[lane] = warp_inclusive_scan(warp_totals[lane]);
    __syncthreads();
    int before = warp == 0 ? 0 : warp_totals[warp - 1];
    if (t < num_blocks) block_counts[t] = before + inclusive - mine;
    if (t == blockDim.x - 1) count[0] = before + inclusive;
    // END FILL-IN
}

// Phase 3: each block writes its kept elements from its offset on, in order:
// a ballot gives each warp its kept lanes, __popc of the lanes below gives a
// lane its slot, and one warp scans the per-segment counts of the tile.
extern "C" __global__ void scatter_kept(const float* in, const int* block_offsets, float* out,
                                        int N, float threshold) {
    int begin, end;
    block_range(N, &begin, &end);
    // BEGIN FILL-IN
    // Segment s = 32 consecutive elements of a tile; ITEMS * WARPS == 32, so one warp scans them.
    __shared__ int segment_start[ITEMS * WARPS + 1];   // the last slot: where the next tile starts
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned lanes_below = (1u << lane) - 1u;
    int next = block_offsets[blockIdx.x];
    for (int base = begin; base < end; base += TILE) {
        float value[ITEMS];
        unsigned kept_lanes[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {               // ITEMS loads in flight
            int i = base + (warp * ITEMS + j) * 32 + lane;  // a warp's segments are consecutive
            value[j] = i < end ? in[i] : 0.0f;
        }
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            int i = base + (warp * ITEMS + j) * 32 + lane;
            kept_lanes[j] = __ballot_sync(0xffffffff, i < end && value[j] > threshold);
            if (lane == 0) segment_start[warp * ITEMS + j] = __popc(kept_lanes[j]);
        }
        __syncthreads();
        if (warp == 0) {
            int c = segment_start[lane];
            int inclusive = warp_inclusive_scan(c);
            segment_start[lane] = next + inclusive - c;
            if (lane == 31) segment_start[32] = next + inclusive;
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            if (kept_lanes[j] >> lane & 1u)
                out[segment_start[warp * ITEMS + j] + __popc(kept_lanes[j] & lanes_below)] = value[j];
        }
        __syncthreads();   // the next tile rewrites segment_start
    }
    // END FILL-IN
}
