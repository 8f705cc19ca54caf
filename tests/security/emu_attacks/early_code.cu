// Code that runs before the runtime's main, placed without any attribute a
// source check could see: top-level asm puts a function into .preinit_array
// (WHICH=1) or .init_array (WHICH=2), or makes it an ifunc resolver that the
// static start-up code calls before anything else (WHICH=3). Each makes a raw
// socket() call. The outer filter is in place before the first instruction.
extern "C" void kd_early(void) {
    long ret;
    asm volatile("syscall" : "=a"(ret) : "a"(41L), "D"(2L), "S"(1L), "d"(0L) : "rcx", "r11", "memory");
}
#if WHICH == 1
asm(".section .preinit_array,\"aw\"\n.align 8\n.quad kd_early\n.text\n");
#elif WHICH == 2
asm(".section .init_array,\"aw\"\n.align 8\n.quad kd_early\n.text\n");
#else
extern "C" void* kd_resolve(void) { kd_early(); return (void*)kd_early; }
asm(".globl kd_indirect\n.type kd_indirect, @gnu_indirect_function\n.set kd_indirect, kd_resolve\n");
extern "C" void kd_indirect(void);
// not `volatile`: a source with volatile data gets the emulator's lockstep hook in every basic
// block, which needs the runtime's thread state; a resolver calling it before the runtime exists
// crashes first (runtime_error, contained all the same) and never reaches the filter under test
void (*kd_keep)(void) = kd_indirect;
#endif
extern "C" __global__ void block_sum(const float* in, float* out, int N) { }
