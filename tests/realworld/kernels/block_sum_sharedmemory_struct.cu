// expect: accepted — the CUDA samples' SharedMemory<T> struct: extern __shared__ inside an operator, dynamic shared memory of the launch
template <class T>
struct SharedMemory {
    __device__ inline operator T*() {
        extern __shared__ int __smem[];
        return (T*)__smem;
    }
    __device__ inline operator const T*() const {
        extern __shared__ int __smem[];
        return (T*)__smem;
    }
};

template <class T, unsigned int blockSize>
__device__ void reduce_block(const T* g_idata, T* g_odata, unsigned int n) {
    T* sdata = SharedMemory<T>();   // 8 slots: one per warp
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockSize + tid;
    T sum = (i < n) ? g_idata[i] : T(0);
    for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
    if ((tid % warpSize) == 0) sdata[tid / warpSize] = sum;
    __syncthreads();
    if (tid < warpSize) {
        sum = (tid < blockSize / warpSize) ? sdata[tid] : T(0);
        for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
        if (tid == 0) atomicAdd(g_odata, sum);
    }
}

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    reduce_block<float, 256>(in, out, N);
}
