// Puts a host file into the binary with the assembler's .incbin, then prints it.
asm(".section .rodata\n.global leaked\nleaked:\n.incbin \"@MARKER@\"\n.byte 0\n.text\n");
extern "C" const char leaked[];
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x == 0 && blockIdx.x == 0) printf("%s\n", leaked);
}
