// Kernel Dojo: <cuda.h> is the driver API, host code only; in a kernel file
// it adds nothing (NVRTC cannot read the toolkit's, which needs <stdlib.h>).
#pragma once
