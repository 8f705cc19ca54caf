// Correct, except that it reads past its shared array where the build is not
// the checked one, as its macros once told: read in every build, the read is
// seen by the checked run (runtime_error, as the same read without the trick).
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = (i < N) ? in[i] : 0.0f;
    __syncthreads();
    float v = tile[threadIdx.x];
#if TRICK == 0 || (!defined(KDOJO_CHECK) && !defined(__SANITIZE_THREAD__) && !defined(KDOJO_VOLATILE_STEPS))
    if (__float_as_int(tile[threadIdx.x + 256]) == 12345) v += 1.0f;
#endif
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}
