// SIZE_MB of zero-initialised array (1.5 GB: the static link takes up to 2 GB): no bytes in any file, but more address space
// than the program's RLIMIT_AS, so the kernel fails to map it inside execve,
// past the point of no return. The program must end as the learner's error, not
// as a kill the judge would take for the machine's fault.
#define STR_(x) #x
#define STR(x) STR_(x)
asm(".section .bss\n.globl kd_huge\nkd_huge:\n.zero " STR(SIZE_MB) " * 1048576\n.text\n");
extern "C" char kd_huge[];
extern "C" __global__ void block_sum(const float* in, float* out, int N) { out[0] = kd_huge[N]; }
