// Kernel Dojo: <float.h> for NVRTC (see kdojo_float.h).
#pragma once
#include "kdojo_float.h"
