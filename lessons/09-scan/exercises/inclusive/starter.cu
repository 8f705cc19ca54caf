// Inclusive prefix sum: out[i] = in[0] + in[1] + ... + in[i].
// Plan: scan_tiles on ceil_div(N, 4096) blocks of 256 threads, then
// scan_tile_sums on 1 block of 1024, then add_carries like scan_tiles.
// state (one 64-bit word per tile) and ticket (one int) start at 0 and are yours.
// Three phases: (1) scan each 4096-element tile, write its total to state,
// (2) scan the tile totals, (3) add the totals of earlier tiles to each tile.
// FILL-IN: constants and helper functions, if you want them
extern "C" __global__ void scan_tiles(const int* in, int* out, long long* state, int* ticket, int N) {
    // BEGIN FILL-IN
    // TODO: the prefix sums of this block's tile, and what the later phases need.
    // END FILL-IN
}

extern "C" __global__ void scan_tile_sums(long long* state, int tiles) {
    // BEGIN FILL-IN
    // TODO: (three phases) the tile totals in state become their prefix sums.
    // END FILL-IN
}

extern "C" __global__ void add_carries(int* out, const long long* state, int N) {
    // BEGIN FILL-IN
    // TODO: (three phases) every element of tile t gets the total of tiles 0..t-1.
    // END FILL-IN
}
