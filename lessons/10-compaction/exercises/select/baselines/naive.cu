// Naive baseline: a single thread walks the array and appends what it keeps.
extern "C" __global__ void select_naive(const float* in, float* out, int* count, int N, float threshold) {
    int kept = 0;
    for (int i = 0; i < N; ++i)
        if (in[i] > threshold) out[kept++] = in[i];
    count[0] = kept;
}
