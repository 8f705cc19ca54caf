// Correct, and no network at all: each key's place is the number of keys of
// its segment that are smaller, plus the equal ones at lower positions
// (1024 comparisons per key: slow, but plainly right).
#define SEGMENT 1024

extern "C" __global__ void bitonic_segments(const unsigned int* keys, unsigned int* out, int N) {
    __shared__ unsigned int s[SEGMENT];
    int base = blockIdx.x * SEGMENT;
    int count = min(SEGMENT, N - base);
    for (int i = threadIdx.x; i < count; i += blockDim.x) s[i] = keys[base + i];
    __syncthreads();
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        unsigned int key = s[i];
        int place = 0;
        for (int j = 0; j < count; ++j) place += s[j] < key || (s[j] == key && j < i);
        out[base + place] = key;
    }
}
