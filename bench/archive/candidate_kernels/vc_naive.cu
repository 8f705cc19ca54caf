// Candidate for bench/candidates.py: lesson 6's naive copy under the exercise's kernel name (geometry vc_naive).
// Naive copy: 8192 threads, each a contiguous chunk. A warp's 32 accesses are
// a chunk apart, so each lands in its own 32-byte sector.
extern "C" __global__ void vector_copy(const float* in, float* out, int N, int offset) {
    const long long threads = gridDim.x * blockDim.x;
    const long long chunk = (N + threads - 1) / threads;
    const long long t = blockIdx.x * blockDim.x + threadIdx.x;
    const long long end = min((long long)N, (t + 1) * chunk);
    for (long long i = t * chunk; i < end; ++i) out[offset + i] = in[offset + i];
}
