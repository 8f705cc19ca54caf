// SIZE floats of static shared memory: a GPU takes 48 KB (12288 floats) at most.
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float big[SIZE];
    big[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) out[0] = big[N - 1];
}
