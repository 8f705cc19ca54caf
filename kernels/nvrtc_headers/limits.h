// Kernel Dojo: <limits.h> for NVRTC: INT_MAX, UINT_MAX … from CUDA's libcu++.
#pragma once
#include <cuda/std/climits>
