// Includes a host file (its content would appear in the compiler's error log).
#include "@MARKER@"
extern "C" __global__ void block_sum(const float* in, float* out, int N) { }
