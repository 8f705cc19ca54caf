// Kernel Dojo: <device_launch_parameters.h> adds nothing a kernel can use (NVRTC has
// threadIdx, the vector types and the intrinsics built in); host code only.
#pragma once
