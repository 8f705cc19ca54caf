// One element per thread per step, 8 steps per block (2048 columns): plain
// bf16 loads and stores, the textbook GELU 0.5 g (1 + erf(g / sqrt 2)). Correct
// for every hidden; each request moves 2 bytes per thread.
#include <cuda_bf16.h>

extern "C" __global__ void glu(const __nv_bfloat16* gate_up, __nv_bfloat16* out, int rows, int hidden, int act) {
    const int row = blockIdx.y;
    const int end = min(hidden, (int)(blockIdx.x + 1) * 2048);
    for (int c = blockIdx.x * 2048 + threadIdx.x; c < end; c += blockDim.x) {
        float g = __bfloat162float(gate_up[(size_t)row * 2 * hidden + c]);
        float u = __bfloat162float(gate_up[(size_t)row * 2 * hidden + hidden + c]);
        float a = act == 0 ? g / (1.0f + expf(-g)) : 0.5f * g * (1.0f + erff(g * 0.70710678f));
        out[(size_t)row * hidden + c] = __float2bfloat16(a * u);
    }
}
