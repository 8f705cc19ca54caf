// Threads are allowed (the runtime's workers), processes are not; RLIMIT_NPROC,
// counted in the sandbox's user namespace, bounds how many threads there can be.
// syscall() replaced: the runtime's own (in-program) filter is never installed.
extern "C" long syscall(long n, ...) { return 0; }
typedef unsigned long pthread_t;
extern "C" int pthread_create(pthread_t*, const void*, void* (*)(void*), void*);
static void* spin(void*) { for (;;) { } return 0; }
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    int made = 0;
    pthread_t t;
    while (made < 100000 && pthread_create(&t, 0, spin, 0) == 0) ++made;
    printf("threads=%d\n", made);
}
