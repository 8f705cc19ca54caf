// Two static shared arrays of A and B floats in one kernel, each under a GPU's 48 KB:
// ptxas adds them up per kernel ("uses too much shared data" past 12288 floats in all).
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float first[A];
    __shared__ float second[B];
    first[threadIdx.x] = in[threadIdx.x];
    second[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) out[0] = first[N - 1] + second[N - 1];
}
