// Stable partition: out = the elements of `in` greater than `threshold`, in
// their input order, then all the others, in their input order; count[0] =
// how many are greater. Launch plan (fixed): count_kept<<<G, 256>>>,
// scan_counts<<<1, 1024>>>, partition_scatter<<<G, 256>>>, G = min(ceil_div(N, 1024), 1024).
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

// Phase 3: element i has `kept` kept elements before it (its slot if kept);
// if it is not kept, i - kept others are before it, after all count[0] kept ones.
extern "C" __global__ void partition_scatter(const float* in, const int* block_offsets, const int* count,
                                             float* out, int N, float threshold) {
    int begin, end;
    block_range(N, &begin, &end);
    // BEGIN FILL-IN
    // TODO: write every element of in[begin, end) to out: a kept one at its slot
    //       among the kept, any other at count[0] + its slot among the others.
    // END FILL-IN
}
