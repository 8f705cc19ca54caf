// Transpose: out[c * rows + r] = in[r * cols + c], in is rows x cols.
// Launch: grid (ceil_div(cols, 32), ceil_div(rows, 32)), block (32, 8):
// one 32x32 tile per block, 4 elements per thread.
// Plan: (1) read the tile, threadIdx.x along a row of in (coalesced),
//       (2) wait for the whole block,
//       (3) write the transposed tile, threadIdx.x along a row of out
//           (coalesced), reading the tile down a column without bank conflicts.
#define TILE 32
#define ROWS_PER_STEP 8

extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
    // BEGIN FILL-IN
    // TODO: declare the shared tile, read it from in, synchronise, write it
    //       transposed to out; check the bounds at the matrix edges.
    // END FILL-IN
}
