// Correct: the reduce2 shape -- grid-stride sums into shared memory, then a
// shared-memory tree with a barrier per level, one atomic per block.
extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    __shared__ float tsum[256];
    int id = threadIdx.x;
    float acc = 0.0f;
    for (int k = blockIdx.x * blockDim.x + id; k < N; k += gridDim.x * blockDim.x) acc += in[k];
    tsum[id] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (id < half) tsum[id] += tsum[id + half];
        __syncthreads();
    }
    if (id == 0) atomicAdd(out, tsum[0]);
}
