// printf without end, from every thread of every block: the runtime and the judge
// keep a bounded part of it; the case's wall clock ends it.
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    for (unsigned long i = 0;; ++i) printf("%lu %s\n", i, "................................................................");
}
