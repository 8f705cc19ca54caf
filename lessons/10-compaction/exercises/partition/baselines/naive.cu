// Naive baseline: a single thread writes the kept elements, then the others.
extern "C" __global__ void partition_naive(const float* in, float* out, int* count, int N, float threshold) {
    int kept = 0;
    for (int i = 0; i < N; ++i)
        if (in[i] > threshold) out[kept++] = in[i];
    int next = kept;
    for (int i = 0; i < N; ++i)
        if (!(in[i] > threshold)) out[next++] = in[i];
    count[0] = kept;
}
