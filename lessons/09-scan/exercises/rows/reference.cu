// Prefix sum of every row: out[r][c] = in[r][0] + in[r][1] + ... + in[r][c].
// Launch: one block of 256 threads per row (grid = rows).
// The block walks its row in chunks of 1024 (4 neighbouring elements per
// thread), scans each chunk (thread, warp shuffle, warp totals in shared
// memory) and carries the running total on to the next chunk.
#define THREADS 256
#define WARPS (THREADS / 32)
#define CHUNK (4 * THREADS)

extern "C" __global__ void scan_rows(const int* in, int* out, int rows, int cols) {
    __shared__ int s_warp[WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int* row_in = in + (long long)blockIdx.x * cols;
    int* row_out = out + (long long)blockIdx.x * cols;
    int carry = 0;                       // the sum of the row's earlier chunks
    for (int start = 0; start < cols; start += CHUNK) {
        const int first = start + 4 * threadIdx.x;
        int v[4], sum = 0;
        for (int j = 0; j < 4; ++j) {
            sum += first + j < cols ? row_in[first + j] : 0;
            v[j] = sum;
        }
        int scanned = sum;
        for (int d = 1; d < 32; d <<= 1) {
            const int up = __shfl_up_sync(0xffffffffu, scanned, d);
            if (lane >= d) scanned += up;
        }
        if (lane == 31) s_warp[warp] = scanned;
        __syncthreads();
        int before = carry + scanned - sum, total = 0;
        for (int w = 0; w < WARPS; ++w) {
            before += w < warp ? s_warp[w] : 0;
            total += s_warp[w];
        }
        for (int j = 0; j < 4; ++j)
            if (first + j < cols) row_out[first + j] = v[j] + before;
        carry += total;
        __syncthreads();                 // every warp has read s_warp before the next chunk writes it
    }
}
