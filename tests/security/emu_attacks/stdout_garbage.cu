extern "C" long write(int fd, const void* p, unsigned long n);
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x == 0 && blockIdx.x == 0) write(1, "garbage garbage garbage\n", 24);
}
