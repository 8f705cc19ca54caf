// Kernel Dojo: <stdio.h> for NVRTC: device printf is built in; nothing else
// of the C library exists in a kernel.
#pragma once
