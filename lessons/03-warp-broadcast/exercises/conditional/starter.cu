// Conditional warp broadcast: lane 0 of each warp finds the maximum of the
// first 8 elements of its block; every lane compares its own value with half
// of that maximum and doubles it (>= threshold) or halves it (< threshold).
// Launch: grid = ceil_div(size, 32) blocks of 32 threads.
extern "C" __global__ void conditional_broadcast(float* output, const float* input, int size) {
    // BEGIN FILL-IN
    int global_i = blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: lane 0 computes the maximum of the block's first 8 elements,
    //       then all lanes receive it through a warp shuffle; threshold = max / 2.

    if (global_i < size) {
        output[global_i] = input[global_i];   // TODO: double or halve it
    }
    // END FILL-IN
}
