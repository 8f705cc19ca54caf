// The H100 numbers behind the emulator's WMMA fragment counts (#16, docs/benchmarks.md
// "WMMA fragments in shared memory, bank by bank"): one warp loads a 16 x 16 half tile of LD
// elements a row as A and B fragments (ldmatrix.x4) 32 times, then stores its fp32 accumulator
// at LD + 8 floats a row (four STS.64). On a GPU with ncu:
//   nvcc -arch=sm_90 -o /tmp/wmma_shared_micro bench/wmma_shared_micro.cu
//   ncu --csv --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_ldsm.sum /tmp/wmma_shared_micro
#include <mma.h>
#include <cstdio>
using namespace nvcuda;
template <int LD, bool COLB>
__global__ void frag(const half* g, float* out, int reps) {
    __shared__ __align__(128) half sa[16 * LD];
    __shared__ __align__(128) float sc[16 * (LD + 8)];
    for (int i = threadIdx.x; i < 16 * LD; i += 32) sa[i] = g[i];
    __syncwarp();
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int r = 0; r < reps; ++r) {
        asm volatile("" ::: "memory");  // reload the fragments every step
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::load_matrix_sync(fa, sa, LD);
        if (COLB) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
            wmma::load_matrix_sync(fb, sa, LD);
            wmma::mma_sync(fc, fa, fb, fc);
        } else {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
            wmma::load_matrix_sync(fb, sa, LD);
            wmma::mma_sync(fc, fa, fb, fc);
        }
    }
    wmma::store_matrix_sync(sc, fc, LD + 8, wmma::mem_row_major);
    __syncwarp();
    out[threadIdx.x] = sc[threadIdx.x * 3];
}
int main() {
    half* g; float* o;
    cudaMalloc(&g, 16 * 128 * 2); cudaMalloc(&o, 4096);
    cudaMemset(g, 0, 16 * 128 * 2);
    frag<16, false><<<1, 32>>>(g, o, 64);
    frag<24, false><<<1, 32>>>(g, o, 64);
    frag<64, false><<<1, 32>>>(g, o, 64);
    frag<16, true><<<1, 32>>>(g, o, 64);
    frag<24, true><<<1, 32>>>(g, o, 64);
    frag<40, false><<<1, 32>>>(g, o, 64);
    cudaDeviceSynchronize();
    printf("done %d\n", (int)cudaGetLastError());
}
