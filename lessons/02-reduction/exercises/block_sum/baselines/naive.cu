// Naive baseline: a single thread walks the whole array. Correct, and about
// as slow as a GPU can be — the point of comparison for the lesson.
extern "C" __global__ void block_sum_naive(const float* in, float* out, int N) {
    float sum = 0.0f;
    for (int i = 0; i < N; ++i) {
        sum += in[i];
    }
    out[0] = sum;
}
