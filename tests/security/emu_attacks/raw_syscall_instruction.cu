// A raw `syscall` instruction (no libc at all): socket(AF_INET, SOCK_STREAM, 0).
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    long ret;
    asm volatile("syscall" : "=a"(ret) : "a"(41L), "D"(2L), "S"(1L), "d"(0L) : "rcx", "r11", "memory");
    out[0] = (float)ret;
}
