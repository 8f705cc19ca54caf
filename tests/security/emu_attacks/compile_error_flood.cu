// Millions of compile errors, each a long static_assert message with its
// instantiation chain (a binary tree of instantiations, 2^24 of them): tens of
// MB of log per second. The compiler's log must not pile up in the judge.
#define S10 "................................................................................................................................"
#define S100 S10 S10 S10 S10 S10 S10 S10 S10
template <unsigned N, unsigned D> struct T {
    static_assert(N == 0, S100);
    static const int v = T<2 * N, D - 1>::v + T<2 * N + 1, D - 1>::v;
};
template <unsigned N> struct T<N, 0> { static const int v = 1; };
int flood = T<1, 24>::v;
extern "C" __global__ void block_sum(const float* in, float* out, int N) { }
