// expect: accepted — llm.c's Packed128 (alignas(16) struct, memcpy to and from int4, load128cs/store128), blockReduce templated on a warp-reduction function, WARP_SIZE 32U
#define WARP_SIZE 32U
#define CEIL_DIV(M, N) (((M) + (N) - 1) / (N))
typedef float floatX;

template <class ElementType>
struct alignas(16) Packed128 {
    Packed128() = default;
    __device__ explicit Packed128(int4 bits) {
        static_assert(sizeof(bits) == sizeof(payload), "Size mismatch.");
        memcpy(&payload, &bits, sizeof(bits));
    }
    __device__ ElementType& operator[](int index) { return payload[index]; }
    __device__ const ElementType& operator[](int index) const { return payload[index]; }
    __device__ int4 get_bits() const {
        int4 bits;
        memcpy(&bits, &payload, sizeof(bits));
        return bits;
    }
    static constexpr const size_t size = sizeof(int4) / sizeof(ElementType);
    ElementType payload[size];
};
typedef Packed128<floatX> x128;

template <class ElementType>
__device__ Packed128<ElementType> load128cs(const ElementType* address) {
    return Packed128<ElementType>{__ldcs(reinterpret_cast<const int4*>(address))};
}
template <class ElementType>
__device__ void store128(ElementType* target, Packed128<ElementType> value) {
    *reinterpret_cast<int4*>(target) = value.get_bits();
}

__device__ inline float warpReduceSum(float val) {
    for (int offset = 16; offset > 0; offset /= 2) val += __shfl_xor_sync(0xFFFFFFFF, val, offset);
    return val;
}

template <float (*warp_reduction)(float)>
__device__ inline float blockReduce(float val, bool final_sync = false, float out_of_bounds = 0.0f) {
    __shared__ float shared_val[WARP_SIZE];
    const int lane_id = threadIdx.x % WARP_SIZE;
    const int warp_id = threadIdx.x / WARP_SIZE;
    const int num_warps = blockDim.x / WARP_SIZE;
    float warp_val = warp_reduction(val);
    if (lane_id == 0) shared_val[warp_id] = warp_val;
    __syncthreads();
    warp_val = (lane_id < num_warps) ? shared_val[lane_id] : out_of_bounds;
    float block_val = warp_reduction(warp_val);
    if (final_sync) __syncthreads();
    return block_val;
}

extern "C" __global__ void layernorm(const float* x, const float* weight, const float* bias,
                                     float* y, int rows, int cols, float eps) {
    const floatX* inp = x + (size_t)blockIdx.x * cols;
    floatX* out = y + (size_t)blockIdx.x * cols;
    const bool vec = cols % x128::size == 0;
    float sum = 0.0f;
    if (vec) {
        for (int i = threadIdx.x * x128::size; i < cols; i += blockDim.x * x128::size) {
            x128 v = load128cs(inp + i);
            for (int k = 0; k < x128::size; ++k) sum += (float)v[k];
        }
    } else {
        for (int i = threadIdx.x; i < cols; i += blockDim.x) sum += inp[i];
    }
    const float mean = blockReduce<warpReduceSum>(sum, true) / cols;
    float var = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
        float d = (float)inp[i] - mean;
        var += d * d;
    }
    const float rstd = rsqrtf(blockReduce<warpReduceSum>(var) / cols + eps);
    if (vec) {
        for (int i = threadIdx.x * x128::size; i < cols; i += blockDim.x * x128::size) {
            x128 v = load128cs(inp + i), w = load128cs(weight + i), b = load128cs(bias + i), o;
            for (int k = 0; k < x128::size; ++k) o[k] = (floatX)(((float)v[k] - mean) * rstd * (float)w[k] + (float)b[k]);
            store128(out + i, o);
        }
    } else {
        for (int i = threadIdx.x; i < cols; i += blockDim.x) out[i] = (inp[i] - mean) * rstd * weight[i] + bias[i];
    }
}
