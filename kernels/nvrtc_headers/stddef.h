// Kernel Dojo: <stddef.h> for NVRTC: size_t, ptrdiff_t.
#pragma once
#include <cuda/std/cstddef>
