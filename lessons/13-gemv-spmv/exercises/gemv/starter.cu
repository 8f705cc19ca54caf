// y = A x, A row-major M x K; y starts at zero.
// Launch: grid (ceil_div(M, 8), S), 256 threads: warp w of block b owns row
// 8b + w; blockIdx.y picks one of S = gridDim.y ranges of K, and the blocks
// sharing a row add their partial sums into y[row].
extern "C" __global__ void gemv(const float* __restrict__ A, const float* __restrict__ x,
                                float* __restrict__ y, int M, int K) {
    const int row = blockIdx.x * 8 + threadIdx.x / 32;
    if (row >= M) return;
    // BEGIN FILL-IN
    // const int lane = threadIdx.x % 32;
    // TODO: sum A[row][k] * x[k] over this block's range of k (lanes 32 apart,
    // float4 when K % 4 == 0), reduce the warp's 32 partial sums, and let
    // lane 0 add the total into y[row].
    // END FILL-IN
}
