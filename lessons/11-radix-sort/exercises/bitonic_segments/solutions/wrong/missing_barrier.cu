// BUG: no __syncthreads() between the steps of a merge, only after each merge:
// a thread reads s[] while another is still swapping it.
// Sort every segment of 1024 keys: out[s*1024 .. s*1024+1024) = that segment
// of `keys`, ascending (the last segment may be shorter). One block of 512
// threads per segment: grid = ceil_div(N, 1024), block = 512.
#define SEGMENT 1024

// FILL-IN: helper functions, if you want them

extern "C" __global__ void bitonic_segments(const unsigned int* keys, unsigned int* out, int N) {
    // BEGIN FILL-IN
    __shared__ unsigned int s[SEGMENT];
    int base = blockIdx.x * SEGMENT;
    for (int i = threadIdx.x; i < SEGMENT; i += blockDim.x)
        s[i] = base + i < N ? keys[base + i] : 0xFFFFFFFFu;   // padding sorts last
    __syncthreads();
    // size: the length of the bitonic runs being merged; stride: the distance
    // compared. Each of the 512 threads owns one pair (lo, lo + stride).
    for (int size = 2; size <= SEGMENT; size <<= 1) {
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            int t = threadIdx.x;
            int lo = 2 * t - (t & (stride - 1));
            int hi = lo + stride;
            bool ascending = (lo & size) == 0;   // alternate directions make bitonic runs
            unsigned int a = s[lo], b = s[hi];
            if ((a > b) == ascending) {
                s[lo] = b;
                s[hi] = a;
            }
        }
        __syncthreads();
    }
    for (int i = threadIdx.x; i < SEGMENT; i += blockDim.x)
        if (base + i < N) out[base + i] = s[i];
    // END FILL-IN
}
