// LayerNorm over each row:
//   mean = sum(x) / cols,  var = sum((x - mean)^2) / cols   (biased, like PyTorch)
//   y = (x - mean) / sqrt(var + eps) * weight + bias
// Launch plan (fixed by the exercise): grid = rows (one block per row),
// block = a power of two between 32 and 1024 threads (see the instructions).
//
// This starter is a placeholder: it copies x to y without normalising.
// Replace it with block-wide reductions for the mean and the variance.

// FILL-IN: helper functions, if you want them

// __launch_bounds__(1024): the plan may launch 1024 threads a block, so the compiler must
// fit the kernel in 64 registers a thread.
extern "C" __global__ void __launch_bounds__(1024) layernorm(const float* x, const float* weight, const float* bias,
                                     float* y, int rows, int cols, float eps) {
    // BEGIN FILL-IN
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    // TODO: block-wide sum -> mean (warp shuffle inside a warp, shared memory across warps)
    // TODO: block-wide sum of squared deviations -> variance
    // TODO: normalise, scale by weight, shift by bias
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = xr[c];
    // END FILL-IN
}
