// FlashAttention forward: Q, K, V, O are BH x S x D halves (D = 64 or 128),
// O[bh][i] = softmax_j(Q[bh][i] . K[bh][j] / sqrt(D), keys j <= i when causal) V[bh][j].
// Launch plan: grid = (ceil(S / BM), BH), block = THREADS, dynamic shared
// memory SMEM_BYTES; choose them below (past 48 KB the judge opts in).
//
// This starter is one thread per query row with no softmax at all: it
// averages V over the visible keys. Replace it with tiles of K and V in shared
// memory, the online softmax and WMMA for Q Kᵀ and P V.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
// BEGIN FILL-IN
#define BM 128
#define THREADS 128
#define SMEM_BYTES 0
// END FILL-IN

// FILL-IN: helper functions, if you want them
extern "C" __global__ __launch_bounds__(THREADS) void
flash_attention(const half* Q, const half* K, const half* V, half* O, int S, int D, int causal) {
    // BEGIN FILL-IN
    const int i = blockIdx.x * BM + threadIdx.x;
    if (threadIdx.x >= BM || i >= S) return;
    const size_t base = (size_t)blockIdx.y * S * D;
    const int keys = causal ? i + 1 : S;
    for (int c = 0; c < D; ++c) {
        float acc = 0.0f;
        for (int j = 0; j < keys; ++j) acc += __half2float(V[base + (size_t)j * D + c]);  // TODO: weight by softmax
        O[base + (size_t)i * D + c] = __float2half(acc / keys);
    }
    // END FILL-IN
}
