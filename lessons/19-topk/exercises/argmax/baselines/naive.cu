// Naive argmax: one thread per row walks its whole row. Neighbouring threads
// read addresses `vocab` floats apart, and most SMs sit idle.
extern "C" __global__ void argmax_naive(const float* logits, int* index, float* value, int rows, int vocab) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = logits + (size_t)row * vocab;
    int best = 0;
    for (int c = 1; c < vocab; ++c)
        if (xr[c] > xr[best]) best = c;  // strict: the first of equal maxima stays
    index[row] = best;
    value[row] = xr[best];
}
