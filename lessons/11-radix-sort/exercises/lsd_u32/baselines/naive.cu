// Naive baseline: a single thread runs the same 4 passes (count, scan,
// stable scatter), keys -> tmp -> out -> tmp -> out, counters in hist[0..255].
extern "C" __global__ void radix_sort_naive(const unsigned int* keys, unsigned int* tmp,
                                            unsigned int* out, unsigned int* hist, int N) {
    const unsigned int* src = keys;
    for (int pass = 0; pass < 4; ++pass) {
        int shift = 8 * pass;
        unsigned int* dst = pass % 2 == 0 ? tmp : out;
        for (int d = 0; d < 256; ++d) hist[d] = 0;
        for (int i = 0; i < N; ++i) hist[(src[i] >> shift) & 255u] += 1;
        unsigned running = 0;
        for (int d = 0; d < 256; ++d) {
            unsigned c = hist[d];
            hist[d] = running;
            running += c;
        }
        for (int i = 0; i < N; ++i) dst[hist[(src[i] >> shift) & 255u]++] = src[i];
        src = dst;
    }
}
