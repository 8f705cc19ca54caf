// Kernel Dojo: <math.h> for NVRTC (see kdojo_math.h).
#pragma once
#include "kdojo_math.h"
