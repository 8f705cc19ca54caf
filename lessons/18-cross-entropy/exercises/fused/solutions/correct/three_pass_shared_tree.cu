// Three passes over the row, each a block reduction through a shared-memory
// tree: the max, the sum of exponentials, then the loss and the gradient.
#define NEG_INF __int_as_float(0xff800000)

__device__ float tree(float* buf, float v, bool is_max) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            float o = buf[threadIdx.x + half];
            buf[threadIdx.x] = is_max ? fmaxf(buf[threadIdx.x], o) : buf[threadIdx.x] + o;
        }
        __syncthreads();
    }
    float r = buf[0];
    __syncthreads();  // buf is reused by the next reduction
    return r;
}

extern "C" __global__ void cross_entropy(const float* logits, const int* targets, float* loss,
                                         float* grad, int rows, int vocab) {
    __shared__ float buf[1024];
    const float* xr = logits + (size_t)blockIdx.x * vocab;
    float* gr = grad + (size_t)blockIdx.x * vocab;
    float m = NEG_INF;
    for (int c = threadIdx.x; c < vocab; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = tree(buf, m, true);
    float s = 0.0f;
    for (int c = threadIdx.x; c < vocab; c += blockDim.x) s += expf(xr[c] - m);
    s = tree(buf, s, false);
    int target = targets[blockIdx.x];
    if (threadIdx.x == 0) loss[blockIdx.x] = m + logf(s) - xr[target];
    for (int c = threadIdx.x; c < vocab; c += blockDim.x)
        gr[c] = (expf(xr[c] - m) / s - (c == target ? 1.0f : 0.0f)) / rows;
}
