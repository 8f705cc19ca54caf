// expect: accepted — dynamic shared memory declared as aligned bytes and reinterpret_cast to float, a templated warp reduction with a functor, unsigned long long counter via atomicAdd
extern __shared__ __align__(16) unsigned char smem_raw[];

template <typename T>
struct Plus { __device__ T operator()(T a, T b) const { return a + b; } };

template <typename T, typename Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
    return v;
}

__device__ unsigned long long g_blocks_seen;

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    float* warp_sums = reinterpret_cast<float*>(smem_raw);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_reduce(i < N ? in[i] : 0.0f, Plus<float>());
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = warp_reduce(threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0f, Plus<float>());
        if (threadIdx.x == 0) {
            atomicAdd(out, v);
            atomicAdd(&g_blocks_seen, 1ull);
        }
    }
}
