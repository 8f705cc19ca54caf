// Naive gated-MLP activation: one thread per row, walking it left to right.
// Neighbouring threads read addresses 2 * hidden elements apart, so nothing
// coalesces: this is the kernel the lesson starts from.
#include <cuda_bf16.h>

extern "C" __global__ void glu_naive(const __nv_bfloat16* gate_up, __nv_bfloat16* out, int rows, int hidden, int act) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    for (int c = 0; c < hidden; ++c) {
        float g = __bfloat162float(gate_up[(size_t)row * 2 * hidden + c]);
        float u = __bfloat162float(gate_up[(size_t)row * 2 * hidden + hidden + c]);
        float a = act == 0 ? g / (1.0f + expf(-g)) : 0.5f * g * (1.0f + erff(g * 0.70710678f));
        out[(size_t)row * hidden + c] = __float2bfloat16(a * u);
    }
}
