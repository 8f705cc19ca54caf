// One element per thread and chunks of 256: the chunk is scanned in shared
// memory in log2(256) = 8 steps (Hillis-Steele), with a barrier around each write.
extern "C" __global__ void scan_rows(const int* in, int* out, int rows, int cols) {
    __shared__ int s[256];
    const int* row_in = in + (long long)blockIdx.x * cols;
    int* row_out = out + (long long)blockIdx.x * cols;
    int carry = 0;
    for (int start = 0; start < cols; start += 256) {
        const int c = start + threadIdx.x;
        s[threadIdx.x] = c < cols ? row_in[c] : 0;
        __syncthreads();
        for (int d = 1; d < 256; d <<= 1) {
            const int up = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
            __syncthreads();
            s[threadIdx.x] += up;
            __syncthreads();
        }
        if (c < cols) row_out[c] = s[threadIdx.x] + carry;
        carry += s[255];
        __syncthreads();
    }
}
