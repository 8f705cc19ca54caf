// expect: accepted — a functor struct with operator() and an operator overload, a namespace, constexpr, using-alias
namespace kd {
constexpr int kThreads = 256;
using index_t = long long;

struct Axpy {
    float a;
    __device__ float operator()(float x, float y) const { return a * x + y; }
};
struct Pair { float x, y; };
__device__ inline Pair operator*(float s, Pair p) { return {s * p.x, s * p.y}; }
__device__ inline Pair operator+(Pair p, Pair q) { return {p.x + q.x, p.y + q.y}; }

template <typename Op>
__device__ void transform(index_t n, const float* x, float* y, Op op) {
    for (index_t i = (index_t)blockIdx.x * kThreads + threadIdx.x; i < n; i += (index_t)gridDim.x * kThreads)
        y[i] = op(x[i], y[i]);
}
}  // namespace kd

extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    kd::Pair p = 2.0f * kd::Pair{1.0f, 2.0f} + kd::Pair{0.0f, -4.0f};  // {2, 0}
    kd::transform(n, x, y, kd::Axpy{a * (p.x - 1.0f) + p.y});
}
