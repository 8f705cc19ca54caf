// Kernel Dojo: <cstdint> / <stdint.h> for NVRTC, which ships no C library
// headers. The types come from CUDA's own libcu++ (CCCL), placed where a
// host compiler puts them: the global namespace and std.
#pragma once
#include <cuda/std/cstdint>
#define KDOJO_STDINT_NAMES(X) X(int8_t) X(int16_t) X(int32_t) X(int64_t) X(uint8_t) X(uint16_t) \
    X(uint32_t) X(uint64_t) X(intptr_t) X(uintptr_t) X(intmax_t) X(uintmax_t) \
    X(int_least8_t) X(int_least16_t) X(int_least32_t) X(int_least64_t) \
    X(uint_least8_t) X(uint_least16_t) X(uint_least32_t) X(uint_least64_t) \
    X(int_fast8_t) X(int_fast16_t) X(int_fast32_t) X(int_fast64_t) \
    X(uint_fast8_t) X(uint_fast16_t) X(uint_fast32_t) X(uint_fast64_t)
#define KDOJO_USING(name) using cuda::std::name;
KDOJO_STDINT_NAMES(KDOJO_USING)
namespace std { KDOJO_STDINT_NAMES(KDOJO_USING) }
#undef KDOJO_USING
#undef KDOJO_STDINT_NAMES
