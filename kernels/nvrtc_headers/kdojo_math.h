// Kernel Dojo: the constants of <cmath> / <math.h> for NVRTC, whose math
// functions (expf, sqrtf …) are built in but which ships no C library header.
// The values are the C library's (glibc's M_* with _GNU_SOURCE, as nvcc's
// host headers give them); the emulator gets the same from its <math.h>.
#pragma once
// INFINITY and NAN are in the prelude (kdojo_prelude.h): nvcc has them everywhere.
#define HUGE_VALF INFINITY
#define HUGE_VAL __builtin_bit_cast(double, 0x7ff0000000000000ull)
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440

// nvcc's CUDA headers make `std::exp`, `std::sqrt` … usable in device code once
// <cmath> or <math.h> is included; NVRTC has the functions built in only in the
// global namespace, so they are named in `std` here too (the emulator's are the
// C++ library's).
namespace std {
using ::abs; using ::fabs; using ::fmod; using ::remainder; using ::fma; using ::fmax; using ::fmin; using ::fdim;
using ::exp; using ::exp2; using ::expm1; using ::log; using ::log10; using ::log2; using ::log1p; using ::pow;
using ::sqrt; using ::cbrt; using ::hypot; using ::sin; using ::cos; using ::tan; using ::asin; using ::acos;
using ::atan; using ::atan2; using ::sinh; using ::cosh; using ::tanh; using ::asinh; using ::acosh; using ::atanh;
using ::erf; using ::erfc; using ::tgamma; using ::lgamma; using ::ceil; using ::floor; using ::trunc; using ::round;
using ::lround; using ::llround; using ::rint; using ::lrint; using ::llrint; using ::nearbyint; using ::frexp;
using ::ldexp; using ::modf; using ::scalbn; using ::ilogb; using ::logb; using ::nextafter; using ::copysign;
using ::isnan; using ::isinf; using ::isfinite; using ::signbit;
}
