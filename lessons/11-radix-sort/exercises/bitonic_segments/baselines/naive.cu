// Naive baseline: one thread per segment, insertion sort straight in out.
extern "C" __global__ void bitonic_segments_naive(const unsigned int* keys, unsigned int* out, int N) {
    int segment = blockIdx.x * blockDim.x + threadIdx.x;
    int base = segment * 1024;
    if (base >= N) return;
    int count = min(1024, N - base);
    for (int i = 0; i < count; ++i) {
        unsigned int key = keys[base + i];
        int j = i;
        for (; j > 0 && out[base + j - 1] > key; --j) out[base + j] = out[base + j - 1];
        out[base + j] = key;
    }
}
