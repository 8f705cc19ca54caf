// Sort every segment of 1024 keys: out[s*1024 .. s*1024+1024) = that segment
// of `keys`, ascending (the last segment may be shorter). One block of 512
// threads per segment: grid = ceil_div(N, 1024), block = 512.
#define SEGMENT 1024

// FILL-IN: helper functions, if you want them

extern "C" __global__ void bitonic_segments(const unsigned int* keys, unsigned int* out, int N) {
    // BEGIN FILL-IN
    // TODO: load this block's segment, keys[blockIdx.x * SEGMENT ...], into a
    //       __shared__ array (pad past N with a key that sorts last),
    //       sort it with a bitonic network (__syncthreads() between steps),
    //       and write back the keys that exist.
    // END FILL-IN
}
