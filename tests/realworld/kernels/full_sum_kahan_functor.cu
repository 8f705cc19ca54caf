// expect: accepted — a Kahan-sum struct with operator+= and operator+, reduced through __shfl_down_sync on its members
struct Kahan {
    float sum, c;   // an aggregate: a __shared__ array of it may not have a constructor
    __device__ Kahan& operator+=(float x) {
        float y = x - c;
        float t = sum + y;
        c = (t - sum) - y;
        sum = t;
        return *this;
    }
    __device__ Kahan operator+(const Kahan& o) const {
        Kahan r = *this;
        r += o.sum;
        r += -o.c;
        return r;
    }
};

__device__ __forceinline__ Kahan shfl_down(const Kahan& k, int offset) {
    Kahan r;
    r.sum = __shfl_down_sync(0xffffffff, k.sum, offset);
    r.c = __shfl_down_sync(0xffffffff, k.c, offset);
    return r;
}

extern "C" __global__ void full_sum(const float* in, float* out, int N) {
    Kahan k{0.0f, 0.0f};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) k += in[i];
    for (int offset = 16; offset > 0; offset /= 2) k = k + shfl_down(k, offset);
    __shared__ Kahan warp_k[8];
    if (threadIdx.x % 32 == 0) warp_k[threadIdx.x / 32] = k;
    __syncthreads();
    if (threadIdx.x == 0) {
        Kahan total{0.0f, 0.0f};
        for (int w = 0; w < 8; ++w) total = total + warp_k[w];
        atomicAdd(out, total.sum - total.c);
    }
}
