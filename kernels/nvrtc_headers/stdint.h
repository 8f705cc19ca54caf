// Kernel Dojo: <stdint.h> for NVRTC (see kdojo_stdint.h).
#pragma once
#include "kdojo_stdint.h"
