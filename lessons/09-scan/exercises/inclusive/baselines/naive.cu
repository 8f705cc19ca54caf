// Naive baseline: one thread walks the whole array, as a CPU loop would.
extern "C" __global__ void scan_naive(const int* in, int* out, int N) {
    int sum = 0;
    for (int i = 0; i < N; ++i) {
        sum += in[i];
        out[i] = sum;
    }
}
