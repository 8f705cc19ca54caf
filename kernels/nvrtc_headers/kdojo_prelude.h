// Kernel Dojo: what nvcc's host headers make visible in every .cu file and
// NVRTC does not: `uint` (glibc's <sys/types.h>) and INFINITY / NAN (<math.h>,
// which every llm.c kernel relies on). Pre-included by the judge
// (kernels/nvrtc.py); the emulator's runtime gives the same.
#pragma once
typedef unsigned int uint;
#define INFINITY __builtin_bit_cast(float, 0x7f800000u)
#define NAN __builtin_bit_cast(float, 0x7fc00000u)
// CCCL's <cuda/std/cmath> (under CUB) defines both again its own way: the same
// values, so the "incompatible redefinition" warning (#47) says nothing.
#pragma nv_diag_suppress 47
