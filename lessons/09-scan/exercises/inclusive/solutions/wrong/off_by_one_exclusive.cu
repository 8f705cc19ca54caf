// BUG: an exclusive scan: out[i] gets the sum of the elements before i, without
// in[i] itself (each value is written before it is added).
#define TILE 4096
#define ITEMS 16                 // per thread, consecutive

// Inclusive scan of one value per thread across the block (any multiple of 32
// threads up to 1024); `s_warp` holds 32 ints. Ends with the block synchronised.
__device__ int block_scan(int x, int* s_warp, int* total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (int d = 1; d < 32; d <<= 1) {
        const int up = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x += up;
    }
    if (lane == 31) s_warp[warp] = x;
    __syncthreads();
    int before = 0, sum = 0;
    for (int w = 0; w < warps; ++w) {
        before += w < warp ? s_warp[w] : 0;
        sum += s_warp[w];
    }
    __syncthreads();             // s_warp may be reused after this
    *total = sum;
    return x + before;
}

extern "C" __global__ void scan_tiles(const int* in, int* out, long long* state, int* ticket, int N) {
    __shared__ int s_warp[32];
    const int first = blockIdx.x * TILE + threadIdx.x * ITEMS;
    int v[ITEMS], sum = 0;
    for (int j = 0; j < ITEMS; ++j) {
        v[j] = first + j < N ? in[first + j] : 0;
        const int x = v[j];
        v[j] = sum;
        sum += x;
    }
    int total;
    const int before = block_scan(sum, s_warp, &total) - sum;
    for (int j = 0; j < ITEMS; ++j)
        if (first + j < N) out[first + j] = v[j] + before;
    if (threadIdx.x == 0) state[blockIdx.x] = total;
}

extern "C" __global__ void scan_tile_sums(long long* state, int tiles) {
    __shared__ int s_warp[32];
    int carry = 0;
    for (int start = 0; start < tiles; start += blockDim.x) {
        const int t = start + threadIdx.x;
        int x = t < tiles ? (int)state[t] : 0, total;
        x = block_scan(x, s_warp, &total) + carry;
        if (t < tiles) state[t] = x;
        carry += total;
    }
}

extern "C" __global__ void add_carries(int* out, const long long* state, int N) {
    if (blockIdx.x == 0) return;
    const int carry = (int)state[blockIdx.x - 1];
    for (int i = blockIdx.x * TILE + threadIdx.x; i < min(N, (blockIdx.x + 1) * TILE); i += blockDim.x)
        out[i] += carry;
}
