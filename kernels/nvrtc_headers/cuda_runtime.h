// Kernel Dojo: <cuda_runtime.h> adds nothing a kernel can use (NVRTC has
// threadIdx, the vector types and the intrinsics built in); host code only.
#pragma once
