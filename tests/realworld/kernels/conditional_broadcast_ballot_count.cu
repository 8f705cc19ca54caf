// expect: accepted — the maximum by __reduce_max_sync on order-preserving integer keys of the floats, then __ballot_sync/__popc to count the lanes at or above the threshold (unused, as learners log it)
__device__ __forceinline__ unsigned float_key(float f) {
    unsigned u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ float key_float(unsigned k) {
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

extern "C" __global__ void conditional_broadcast(float* output, const float* input, int size) {
    const int gid = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const bool head = lane < 8 && gid < size;
    unsigned key = head ? float_key(input[gid]) : 0u;   // 0 is below every real key
    float mx = key_float(__reduce_max_sync(0xffffffffu, key));
    float threshold = mx * 0.5f;
    float x = gid < size ? input[gid] : 0.0f;
    unsigned high = __ballot_sync(0xffffffffu, gid < size && x >= threshold);
    int doubled = __popc(high);
    if (gid < size) output[gid] = (high >> lane) & 1u ? x * 2.0f : x * 0.5f;
    (void)doubled;
}
