// Kernel Dojo: <assert.h> for NVRTC: device assert() is built in (a failed one traps:
// CUDA_ERROR_ASSERT); nothing else to add.
#pragma once
