// One output per thread, its K x K inputs read straight from global memory:
// coalesced (threadIdx.x walks the columns), and most reads hit the L1 cache
// because neighbouring threads share inputs. The middle step of the table.
extern "C" __global__ void conv2d_direct(const float* __restrict__ x, const float* __restrict__ w,
                                         float* __restrict__ y, int H, int W, int K) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= H || c >= W) return;
    const int R = K / 2;
    float sum = 0.0f;
    for (int i = 0; i < K; ++i) {
        const int gr = r + i - R;
        if (gr < 0 || gr >= H) continue;
        for (int j = 0; j < K; ++j) {
            const int gc = c + j - R;
            if (gc >= 0 && gc < W) sum += __ldg(w + i * K + j) * __ldg(x + (size_t)gr * W + gc);
        }
    }
    y[(size_t)r * W + c] = sum;
}
