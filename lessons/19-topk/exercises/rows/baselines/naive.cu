// Naive top-k: one thread per row keeps a sorted list of its k best in local
// memory and insertion-sorts every logit of its row into it. Neighbouring
// threads read addresses `vocab` floats apart, and most SMs sit idle.
extern "C" __global__ void topk_naive(const float* logits, float* values, int* indices, int rows, int vocab, int k) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = logits + (size_t)row * vocab;
    float v[64];
    int id[64];
    int n = 0;
    for (int c = 0; c < vocab; ++c) {
        float x = xr[c];
        if (n == k && !(x > v[k - 1])) continue;  // equal: the earlier column stays
        int j = n < k ? n++ : k - 1;
        while (j > 0 && x > v[j - 1]) { v[j] = v[j - 1]; id[j] = id[j - 1]; --j; }
        v[j] = x;
        id[j] = c;
    }
    for (int j = 0; j < k; ++j) {
        values[(size_t)row * k + j] = v[j];
        indices[(size_t)row * k + j] = id[j];
    }
}
