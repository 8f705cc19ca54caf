// 16 million initialisers from a few lines of macros: both compilers (the fast and
// the checked build, in parallel) grow to their share of KDOJO_EMU_COMPILE_MB and
// stop there; the whole tree stays under 2.5 GB.
#define X4(...) __VA_ARGS__ __VA_ARGS__ __VA_ARGS__ __VA_ARGS__
#define X16(...) X4(X4(__VA_ARGS__))
#define X256(...) X16(X16(__VA_ARGS__))
int kd_big[] = { X256(X256(X256(1,))) };
extern "C" __global__ void block_sum(const float* in, float* out, int N) { out[0] = kd_big[N]; }
