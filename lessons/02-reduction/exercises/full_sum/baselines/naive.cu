// Naive baseline: a single thread reads every element.
extern "C" __global__ void full_sum_naive(const float* in, float* out, int N) {
    float sum = 0.0f;
    for (int i = 0; i < N; ++i) sum += in[i];
    out[0] = sum;
}
