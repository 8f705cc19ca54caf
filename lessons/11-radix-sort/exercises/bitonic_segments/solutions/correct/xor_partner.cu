// Correct: the same network written with partners: element i meets i ^ stride;
// the lower of the two does the compare-and-swap. Each thread owns elements
// t and t + 512.
#define SEGMENT 1024

__device__ void compare_swap(unsigned int* s, int i, int stride, int size) {
    int partner = i ^ stride;
    if (partner <= i) return;
    bool ascending = (i & size) == 0;
    unsigned int a = s[i], b = s[partner];
    if ((a > b) == ascending) {
        s[i] = b;
        s[partner] = a;
    }
}

extern "C" __global__ void bitonic_segments(const unsigned int* keys, unsigned int* out, int N) {
    __shared__ unsigned int s[SEGMENT];
    int base = blockIdx.x * SEGMENT;
    int t = threadIdx.x;
    s[t] = base + t < N ? keys[base + t] : 0xFFFFFFFFu;
    s[t + 512] = base + t + 512 < N ? keys[base + t + 512] : 0xFFFFFFFFu;
    __syncthreads();
    for (int size = 2; size <= SEGMENT; size <<= 1)
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            compare_swap(s, t, stride, size);
            compare_swap(s, t + 512, stride, size);
            __syncthreads();
        }
    if (base + t < N) out[base + t] = s[t];
    if (base + t + 512 < N) out[base + t + 512] = s[t + 512];
}
