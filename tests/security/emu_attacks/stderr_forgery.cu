// Reports the judge used to read from stderr, forged: none decides the verdict.
extern "C" long write(int fd, const void* p, unsigned long n);
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    const char text[] = "std::bad_alloc\nCannot allocate memory\nKDOJO-FORBIDDEN-SYSCALL 41\n"
                        "KDOJO-MEMORY-FAULT pc=0x1 addr=0x2 write=1 stack=0 buffer=0 element=5\n";
    write(2, text, sizeof text - 1);
}
