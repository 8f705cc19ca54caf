// 20 GB in 64 MB steps, each touched: RLIMIT_AS stops it at the program's limit.
extern "C" void* malloc(unsigned long n);
extern "C" void* memset(void* p, int c, unsigned long n);
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    unsigned long got = 0;
    for (int i = 0; i < 320; ++i) {
        void* p = malloc(64ul << 20);
        if (!p) break;
        memset(p, 1, 64ul << 20);
        got += 64;
    }
    printf("MB=%lu\n", got);
}
