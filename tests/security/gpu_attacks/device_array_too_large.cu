// A __device__ array larger than any GPU's memory: NVRTC compiles it, the module
// does not load (CUDA_ERROR_OUT_OF_MEMORY). The learner's verdict, not ours.
__device__ float kd_huge[1ull << 38];  // 1 TiB
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = kd_huge[N];
}
