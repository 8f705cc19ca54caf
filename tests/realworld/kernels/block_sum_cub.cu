// expect: accepted — gpu-only: CUB's BlockReduce (the emulator answers "needs a GPU")
#include <cub/cub.cuh>

extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    using BlockReduce = cub::BlockReduce<float, 256>;
    __shared__ typename BlockReduce::TempStorage temp;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = BlockReduce(temp).Sum(i < N ? in[i] : 0.0f);
    if (threadIdx.x == 0) atomicAdd(out, sum);
}
