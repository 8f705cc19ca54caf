// Naive baseline: one thread per byte, one global atomicAdd per byte. Every
// block competes for the same 256 counters in L2; skewed data sends almost all
// of them to one address.
extern "C" __global__ void histogram_naive(const unsigned char* data, unsigned int* bins, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) atomicAdd(&bins[data[i]], 1u);
}
