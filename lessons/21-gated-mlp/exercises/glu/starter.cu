// Fused gated-MLP activation (bf16 in and out):
//   out[r, c] = act(gate[r, c]) * up[r, c]
// Row r of gate_up (2 * hidden values) is [gate | up]; out is rows x hidden.
// act = 0: SiLU(g) = g / (1 + exp(-g))           (SwiGLU)
// act = 1: GELU(g) = 0.5 g (1 + erf(g / sqrt 2)) (GeGLU, the exact one)
// Launch plan (fixed by the exercise): grid = (ceil_div(hidden, 2048), rows),
// block = 256: block (x, y) covers row y, columns x*2048 .. x*2048+2047.
//
// This starter is a placeholder: it copies up to out, with no activation.
#include <cuda_bf16.h>

// FILL-IN: helper functions, if you want them
extern "C" __global__ void glu(const __nv_bfloat16* gate_up, __nv_bfloat16* out, int rows, int hidden, int act) {
    // BEGIN FILL-IN
    const int row = blockIdx.y;
    const int start = blockIdx.x * 2048;
    // TODO: find this row's gate and up (rows of gate_up are 2 * hidden apart)
    // TODO: out = act(gate) * up, computed in float
    for (int c = start + threadIdx.x; c < min(hidden, start + 2048); c += blockDim.x)
        out[(size_t)row * hidden + c] = gate_up[(size_t)row * 2 * hidden + hidden + c];
    // END FILL-IN
}
