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

// Phase 1: how many elements of its range each block keeps.
extern "C" __global__ void count_kept(const float* in, int* block_counts, int N, float threshold) {
    int begin, end;
    block_range(N, &begin, &end);
    // BEGIN FILL-IN
    // TODO: count the elements of in[begin, end) greater than threshold and
    //       write this block's total to block_counts[blockIdx.x].
    // END FILL-IN
}

// Phase 2: one block of 1024 threads turns the counts into exclusive offsets
// (in place) and writes the total to count[0].
extern "C" __global__ void scan_counts(int* block_counts, int* count, int num_blocks) {
    // BEGIN FILL-IN
    // TODO: turn block_counts[0..num_blocks) into exclusive prefix sums (in place)
    //       and write the total to count[0].
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
    // TODO: write the kept elements of in[begin, end) to out, in order, starting
    //       at block_offsets[blockIdx.x]. Use __ballot_sync and __popc.
    // END FILL-IN
}
