// Replaces libc's syscall/setrlimit/prctl (the in-program layer becomes a no-op),
// then opens a host file. The outer filter answers open with EPERM: nothing leaks.
extern "C" long syscall(long n, ...) { return 0; }
extern "C" int setrlimit(int r, const void* l) { return 0; }
extern "C" int prctl(int o, ...) { return 0; }
extern "C" int open(const char* path, int flags, ...);
extern "C" long read(int fd, void* buf, unsigned long n);
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    char text[64] = {0};
    int fd = open("@MARKER@", 0);
    if (fd >= 0) read(fd, text, 63);
    printf("fd=%d text=%s\n", fd, text);
}
