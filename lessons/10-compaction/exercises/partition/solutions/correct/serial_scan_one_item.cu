// Correct (partition), the simplest layout: one element per thread per step, a ballot per
// warp, warp counts scanned by thread 0, and a scan of the block counts done
// by one thread (at most 1024 numbers, so it costs little).
#define THREADS 256
#define TILE 1024
#define WARPS (THREADS / 32)

__device__ void block_range(int N, int* begin, int* end) {
    int per_block = (N + gridDim.x - 1) / gridDim.x;
    per_block = (per_block + TILE - 1) / TILE * TILE;
    *begin = min(N, (int)blockIdx.x * per_block);
    *end = min(N, *begin + per_block);
}

extern "C" __global__ void count_kept(const float* in, int* block_counts, int N, float threshold) {
    __shared__ int total;
    int begin, end;
    block_range(N, &begin, &end);
    if (threadIdx.x == 0) total = 0;
    __syncthreads();
    int kept = 0;
    for (int i = begin + threadIdx.x; i < end; i += THREADS) kept += in[i] > threshold;
    atomicAdd(&total, kept);          // a sum: the order of the additions does not matter
    __syncthreads();
    if (threadIdx.x == 0) block_counts[blockIdx.x] = total;
}

extern "C" __global__ void scan_counts(int* block_counts, int* count, int num_blocks) {
    if (threadIdx.x != 0) return;
    int running = 0;
    for (int b = 0; b < num_blocks; ++b) {
        int c = block_counts[b];
        block_counts[b] = running;
        running += c;
    }
    count[0] = running;
}

extern "C" __global__ void partition_scatter(const float* in, const int* block_offsets, const int* count,
                                             float* out, int N, float threshold) {
    __shared__ int warp_start[WARPS + 1];
    int begin, end;
    block_range(N, &begin, &end);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int next = block_offsets[blockIdx.x];
    int total_kept = count[0];
    for (int base = begin; base < end; base += THREADS) {
        int i = base + threadIdx.x;
        float v = i < end ? in[i] : 0.0f;
        unsigned kept = __ballot_sync(0xffffffff, i < end && v > threshold);
        if (lane == 0) warp_start[warp] = __popc(kept);
        __syncthreads();
        if (threadIdx.x == 0) {
            int running = next;
            for (int w = 0; w < WARPS; ++w) {
                int c = warp_start[w];
                warp_start[w] = running;
                running += c;
            }
            warp_start[WARPS] = running;
        }
        __syncthreads();
        int kept_before = warp_start[warp] + __popc(kept & ((1u << lane) - 1u));
        if (i < end) out[(kept >> lane & 1u) ? kept_before : total_kept + (i - kept_before)] = v;
        next = warp_start[WARPS];
        __syncthreads();
    }
}
