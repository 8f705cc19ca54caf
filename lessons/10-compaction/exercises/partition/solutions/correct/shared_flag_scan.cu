// Correct (partition), without warp intrinsics: one element per thread per step,
// __syncthreads_count to count, and a Hillis-Steele scan of 0/1 flags in
// shared memory (double-buffered) to give each kept element its slot.
#define THREADS 256
#define TILE 1024

__device__ void block_range(int N, int* begin, int* end) {
    int per_block = (N + gridDim.x - 1) / gridDim.x;
    per_block = (per_block + TILE - 1) / TILE * TILE;
    *begin = min(N, (int)blockIdx.x * per_block);
    *end = min(N, *begin + per_block);
}

// Inclusive scan of one value per thread over the whole block (blockDim.x <= 1024).
__device__ int block_inclusive_scan(int v, int* buffer) {
    int t = threadIdx.x, n = blockDim.x;
    int* src = buffer;
    int* dst = buffer + n;
    src[t] = v;
    __syncthreads();
    for (int offset = 1; offset < n; offset <<= 1) {
        dst[t] = t >= offset ? src[t] + src[t - offset] : src[t];
        __syncthreads();
        int* swap = src; src = dst; dst = swap;
    }
    int result = src[t];
    __syncthreads();   // the buffer is reused by the caller's next scan
    return result;
}

extern "C" __global__ void count_kept(const float* in, int* block_counts, int N, float threshold) {
    int begin, end;
    block_range(N, &begin, &end);
    int total = 0;
    for (int base = begin; base < end; base += THREADS) {
        int i = base + threadIdx.x;
        total += __syncthreads_count(i < end && in[i] > threshold);
    }
    if (threadIdx.x == 0) block_counts[blockIdx.x] = total;
}

extern "C" __global__ void scan_counts(int* block_counts, int* count, int num_blocks) {
    __shared__ int buffer[2 * 1024];
    int t = threadIdx.x;
    int mine = t < num_blocks ? block_counts[t] : 0;
    int inclusive = block_inclusive_scan(mine, buffer);
    if (t < num_blocks) block_counts[t] = inclusive - mine;
    if (t == blockDim.x - 1) count[0] = inclusive;
}

extern "C" __global__ void partition_scatter(const float* in, const int* block_offsets, const int* count,
                                             float* out, int N, float threshold) {
    __shared__ int buffer[2 * THREADS];
    int begin, end;
    block_range(N, &begin, &end);
    int next = block_offsets[blockIdx.x];
    int total_kept = count[0];
    for (int base = begin; base < end; base += THREADS) {
        int i = base + threadIdx.x;
        float v = i < end ? in[i] : 0.0f;
        int keep = (i < end && v > threshold) ? 1 : 0;
        int inclusive = block_inclusive_scan(keep, buffer);
        int kept_before = next + inclusive - keep;      // kept elements before i
        if (i < end) out[keep ? kept_before : total_kept + (i - kept_before)] = v;
        next += __syncthreads_count(keep);
    }
}
