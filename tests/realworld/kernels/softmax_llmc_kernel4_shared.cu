// expect: accepted — llm.c softmax_forward_kernel4 style: warp max/sum with __shfl_down_sync, lane 0 of each warp in dynamic-size-free static shared arrays, thread 0 combines, a __syncthreads broadcast
__device__ float warpReduceMax(float val) {
    for (int offset = 16; offset > 0; offset /= 2) val = fmaxf(val, __shfl_down_sync(0xFFFFFFFF, val, offset));
    return val;
}
__device__ float warpReduceSum(float val) {
    for (int offset = 16; offset > 0; offset /= 2) val += __shfl_down_sync(0xFFFFFFFF, val, offset);
    return val;
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float maxvals[32];
    __shared__ float sumvals[32];
    const int idx = blockIdx.x, tid = threadIdx.x;
    const int warpId = tid / 32, laneId = tid % 32, warpsPerBlock = blockDim.x / 32;
    const float* xr = x + (size_t)idx * cols;
    float* yr = y + (size_t)idx * cols;
    float maxval = -INFINITY;
    for (int i = tid; i < cols; i += blockDim.x) maxval = fmaxf(maxval, xr[i]);
    maxval = warpReduceMax(maxval);
    if (laneId == 0) maxvals[warpId] = maxval;
    __syncthreads();
    if (tid == 0) {
        float val = maxvals[tid];
        for (int i = 1; i < warpsPerBlock; i++) val = fmaxf(val, maxvals[i]);
        maxvals[0] = val;
    }
    __syncthreads();
    float offset = maxvals[0];
    for (int i = tid; i < cols; i += blockDim.x) yr[i] = expf(xr[i] - offset);
    float sumval = 0.0f;
    for (int i = tid; i < cols; i += blockDim.x) sumval += yr[i];
    sumval = warpReduceSum(sumval);
    if (laneId == 0) sumvals[warpId] = sumval;
    __syncthreads();
    if (tid == 0) {
        float val = sumvals[tid];
        for (int i = 1; i < warpsPerBlock; ++i) val += sumvals[i];
        sumvals[0] = val;
    }
    __syncthreads();
    float sum = sumvals[0];
    for (int i = tid; i < cols; i += blockDim.x) yr[i] = yr[i] / sum;
}
