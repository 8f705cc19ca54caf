// One element per thread and chunks of 256: each warp scans its 32 values with
// shuffles, then warp 0 scans the 8 warp totals with shuffles too, and every
// thread adds the total of the warps before it.
extern "C" __global__ void scan_rows(const int* in, int* out, int rows, int cols) {
    __shared__ int s_warp[8];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int* row_in = in + (long long)blockIdx.x * cols;
    int* row_out = out + (long long)blockIdx.x * cols;
    int carry = 0;
    for (int start = 0; start < cols; start += 256) {
        const int c = start + threadIdx.x;
        int x = c < cols ? row_in[c] : 0;
        for (int d = 1; d < 32; d *= 2) {
            const int up = __shfl_up_sync(0xffffffffu, x, d);
            if (lane >= d) x += up;
        }
        if (lane == 31) s_warp[warp] = x;
        __syncthreads();
        if (warp == 0) {                 // inclusive scan of the 8 warp totals, in place
            int t = lane < 8 ? s_warp[lane] : 0;
            for (int d = 1; d < 8; d *= 2) {
                const int up = __shfl_up_sync(0xffffffffu, t, d);
                if (lane >= d) t += up;
            }
            if (lane < 8) s_warp[lane] = t;
        }
        __syncthreads();
        if (c < cols) row_out[c] = carry + x + (warp > 0 ? s_warp[warp - 1] : 0);
        carry += s_warp[7];
        __syncthreads();
    }
}
