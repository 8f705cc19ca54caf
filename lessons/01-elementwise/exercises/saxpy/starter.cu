// SAXPY: y[i] = a * x[i] + y[i] for every i in [0, n).
// Launch: min(ceil_div(n, 256), 1024) blocks of 256 threads.
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    // BEGIN FILL-IN
    // TODO: start from the global index blockIdx.x * blockDim.x + threadIdx.x
    //       and update y -- with a bounds check, and for every element even
    //       when the grid has fewer threads than n.
    // END FILL-IN
}
