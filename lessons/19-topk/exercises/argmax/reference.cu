// Argmax per row, one block per row; equal values: the lower column wins.
// Each thread scans its columns in increasing order, keeping the first of
// equal maxima (strict >); pairs (value, column) then merge by warp shuffles
// and one pair per warp through shared memory. float4 loads where the row is
// 16-byte aligned (vocab % 4 == 0).
#define NEG_INF __int_as_float(0xff800000)  // -inf; NVRTC has no <math.h>

// Keep (v, c) or (v2, c2): the larger value, on equal values the lower column.
__device__ __forceinline__ void better(float& v, int& c, float v2, int c2) {
    if (v2 > v || (v2 == v && c2 < c)) { v = v2; c = c2; }
}
__device__ __forceinline__ void warp_best(float& v, int& c) {
    for (int o = 16; o > 0; o >>= 1)
        better(v, c, __shfl_xor_sync(0xffffffffu, v, o), __shfl_xor_sync(0xffffffffu, c, o));
}

extern "C" __global__ void argmax(const float* logits, int* index, float* value, int rows, int vocab) {
    __shared__ float sv[32];
    __shared__ int sc[32];
    const float* xr = logits + (size_t)blockIdx.x * vocab;
    const int nt = blockDim.x, tid = threadIdx.x;
    float v = NEG_INF;
    int c = 0x7fffffff;  // above every column: loses every tie
    if (vocab % 4 == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        for (int i = tid; i < vocab / 4; i += nt) {
            float4 q = x4[i];
            if (q.x > v) { v = q.x; c = 4 * i; }  // strict: an equal later value never replaces
            if (q.y > v) { v = q.y; c = 4 * i + 1; }
            if (q.z > v) { v = q.z; c = 4 * i + 2; }
            if (q.w > v) { v = q.w; c = 4 * i + 3; }
        }
    } else {
        for (int i = tid; i < vocab; i += nt)
            if (xr[i] > v) { v = xr[i]; c = i; }
    }
    warp_best(v, c);
    const int lane = tid & 31, warp = tid >> 5;
    if (nt > 32) {
        if (lane == 0) { sv[warp] = v; sc[warp] = c; }
        __syncthreads();
        if (warp != 0) return;
        v = lane < (nt >> 5) ? sv[lane] : NEG_INF;
        c = lane < (nt >> 5) ? sc[lane] : 0x7fffffff;
        warp_best(v, c);
    }
    if (tid == 0) { index[blockIdx.x] = c; value[blockIdx.x] = v; }
}
