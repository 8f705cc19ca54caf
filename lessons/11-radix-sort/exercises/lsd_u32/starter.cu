// LSD radix sort of uint32 keys: 4 passes of 8 bits, lowest digit first.
// Each pass is 3 launches of this plan (shift = 0, 8, 16, 24):
//   digit_histogram<<<G, 256>>>   hist[d * G + b] = how many keys of block b have digit d
//   scan_histogram<<<1, 1024>>>   hist becomes its exclusive prefix sum (digit-major)
//   scatter_digits<<<G, 256>>>    each key to hist[d * G + b] + its stable rank
// with G = min(ceil_div(N, 1024), 512). Passes go keys -> tmp -> out -> tmp -> out.
#define THREADS 256
#define ITEMS 16                    // keys per thread per tile
#define TILE (THREADS * ITEMS)      // 4096 keys a block handles at a time
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

// FILL-IN: helper functions, if you want them

extern "C" __global__ void __launch_bounds__(THREADS) digit_histogram(const unsigned int* keys, unsigned int* hist, int N, int shift) {
    int begin, end;
    block_range(N, &begin, &end);
    // BEGIN FILL-IN
    // TODO: count the digits (digit_of(key, shift)) of keys[begin, end) and write
    //       hist[d * gridDim.x + blockIdx.x] for every digit d.
    // END FILL-IN
}

extern "C" __global__ void scan_histogram(unsigned int* hist, int num_blocks) {
    // BEGIN FILL-IN
    // TODO: replace hist[0 .. 256 * num_blocks) by its exclusive prefix sum.
    // END FILL-IN
}

extern "C" __global__ void __launch_bounds__(THREADS, 4) scatter_digits(const unsigned int* keys_in, const unsigned int* hist,
                                          unsigned int* keys_out, int N, int shift) {
    int begin, end;
    block_range(N, &begin, &end);
    // BEGIN FILL-IN
    // TODO: write every key of keys_in[begin, end) to keys_out at
    //       hist[d * gridDim.x + blockIdx.x] + (keys of digit d before it in this block),
    //       keeping the input order of equal digits (a stable scatter).
    // END FILL-IN
}
