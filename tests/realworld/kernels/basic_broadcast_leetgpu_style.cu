// expect: accepted — LeetGPU style: lane from threadIdx.x & 31, #define FULL_MASK, the shuffle outside every branch
#define FULL_MASK 0xffffffff
#define WARP_SIZE 32

extern "C" __global__ void basic_broadcast(float* output, const float* input, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & (WARP_SIZE - 1);
    int start = blockIdx.x * blockDim.x;
    float value = 0.0f;
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (start + k < size) value += input[start + k];
    }
    value = __shfl_sync(FULL_MASK, value, 0, WARP_SIZE);
    if (idx < size) output[idx] = input[idx] + value;
}
