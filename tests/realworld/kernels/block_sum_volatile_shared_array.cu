// expect: accepted — a `__shared__ volatile` array: the tree with barriers down to 64, then warp 0 finishes with no barrier, templated on the block size
template <unsigned int blockSize>
__device__ void reduce_tail(volatile float* s, unsigned int tid) {
    if (blockSize >= 64) s[tid] += s[tid + 32];
    if (blockSize >= 32) s[tid] += s[tid + 16];
    if (blockSize >= 16) s[tid] += s[tid + 8];
    if (blockSize >= 8) s[tid] += s[tid + 4];
    if (blockSize >= 4) s[tid] += s[tid + 2];
    if (blockSize >= 2) s[tid] += s[tid + 1];
}

template <unsigned int blockSize>
__device__ void reduce6(const float* g_idata, float* g_odata, unsigned int n) {
    __shared__ volatile float sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockSize + tid;
    sdata[tid] = i < n ? g_idata[i] : 0.0f;
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
    if (tid < 32) reduce_tail<blockSize>(sdata, tid);
    if (tid == 0) atomicAdd(g_odata, sdata[0]);
}

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    switch (blockDim.x) {
        case 512: reduce6<512>(in, out, N); break;
        case 256: reduce6<256>(in, out, N); break;
        case 128: reduce6<128>(in, out, N); break;
    }
}
