"""The fiber runtime runs real CUDA kernels correctly: the seeds' reductions and
warp-broadcast puzzles, the device surface (atomics, vector types, math, half)."""

import numpy as np
import pytest

from tests.emu.harness import kernel_file, launch

SEED_BROADCAST_IN = np.arange(1, 33, dtype=np.float32)
SEED_CONDITIONAL_IN = np.tile(np.array([3, 1, 7, 2, 9, 4, 6, 8], np.float32), 4)
SEED_SHUFFLE_IN = np.array([2, 4, 6, 8] + [1, 3, 5, 7] * 7, np.float32)


@pytest.mark.parametrize("n", [1, 255, 4097, 65536])
def test_warp_shuffle_block_sum(n):
    x = np.random.default_rng(n).random(n, dtype=np.float32) + 0.5
    got = launch(kernel_file("good_warp_shuffle_sum.cu"), "k", (n + 255) // 256, 256,
                 [x, np.zeros(1, np.float32), n], shared=8 * 4)
    assert got.fault is None and not got.diagnostics
    assert got.arrays[1][0] == pytest.approx(float(x.astype(np.float64).sum()), rel=1e-5)


def test_tree_reduction_with_syncwarp_tail_is_clean_in_the_checker():
    n = 10000
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    for variant, adversarial in (("fast", False), ("check", True)):
        got = launch(kernel_file("good_tree_syncwarp.cu"), "k", 8, 256, [x, np.zeros(8, np.float32), n],
                     shared=256 * 4, variant=variant, adversarial=adversarial)
        assert got.fault is None and not got.diagnostics, got.diagnostics
        assert got.arrays[1].sum() == pytest.approx(float(x.astype(np.float64).sum()), rel=1e-5)


@pytest.mark.parametrize("name, data, expected", [
    ("good_broadcast_basic.cu", SEED_BROADCAST_IN, np.arange(11, 43, dtype=np.float32)),
    ("good_broadcast_conditional.cu", SEED_CONDITIONAL_IN,
     np.tile(np.array([1.5, 0.5, 14, 1, 18, 2, 12, 16], np.float32), 4)),
    ("good_broadcast_shuffle.cu", SEED_SHUFFLE_IN,
     np.array([30, 50, 70, 45] + [20, 40, 60, 40] * 6 + [20, 40, 60, 35], np.float32)),
])
def test_warp_broadcast_puzzles_give_the_seed_outputs(name, data, expected):
    for variant, adversarial in (("fast", False), ("check", True)):
        got = launch(kernel_file(name), "k", 1, 32, [np.zeros(32, np.float32), data, 32],
                     variant=variant, adversarial=adversarial)
        assert got.fault is None and not got.diagnostics, got.diagnostics
        np.testing.assert_array_equal(got.arrays[0], expected)


SURFACE = r"""
#include <cuda_fp16.h>
template <typename T> __device__ T twice(T v) { return v + v; }
extern "C" __global__ void k(float* f, int* i, unsigned* u, double* d) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    atomicAdd(&i[0], 1);
    atomicMax(&i[1], t);
    atomicMin(&i[2], -t);
    atomicAdd(&u[0], 2u);
    atomicCAS(&u[1], 0u, 7u);
    atomicExch(&u[2], 5u);
    atomicAdd(&d[0], 0.5);
    atomicSub(&i[3], 1);
    if (t == 0) {
        float4 v = make_float4(1.f, 2.f, 3.f, 4.f);
        f[0] = v.x + v.y + v.z + v.w;
        f[1] = rsqrtf(4.0f) + __expf(0.0f) + tanhf(0.0f) + fmaxf(1.0f, 2.0f);
        f[2] = __half2float(__float2half(1.5f) + __float2half(0.25f));
        f[3] = twice(1.25f) + __fdividef(1.0f, 4.0f) + __ldg(&f[0]);
        f[4] = (float)__popc(0xF0u) + (float)min(3, 5) + max(2.0f, 1.0f);
        f[5] = __bfloat162float(__float2bfloat16(3.0f));
        printf("hello from %d\n", t);
    }
    unsigned ballot = __ballot_sync(0xffffffffu, t % 2 == 0);
    if (t == 1) u[3] = ballot;
    unsigned votes = __all_sync(0xffffffffu, t >= 0) + __any_sync(0xffffffffu, t == 40);
    if (t == 2) u[4] = votes;
    float x = __shfl_xor_sync(0xffffffffu, (float)t, 1, 4);
    if (t == 5) f[6] = x;
    float y = __shfl_up_sync(0xffffffffu, (float)t, 2);
    if (t == 3) f[7] = y;
}
"""


def test_device_surface_atomics_math_vectors_half_and_printf():
    f = np.zeros(8, np.float32)
    i = np.array([0, -1, 0, 0], np.int32)
    u = np.zeros(5, np.uint32)
    d = np.zeros(1, np.float64)
    got = launch(SURFACE, "k", 2, 32, [f, i, u, d])
    assert got.fault is None and not got.diagnostics, got.diagnostics
    f, i, u, d = got.arrays
    assert list(i) == [64, 63, -63, -64]
    assert list(u) == [128, 7, 5, 0x55555555, 1]
    assert d[0] == 32.0
    assert list(f[:6]) == [10.0, 3.5, 1.75, 12.75, 9.0, 3.0]
    assert f[6] == 4.0 and f[7] == 1.0
    assert got.output == "hello from 0\n"


def test_launch_configuration_limits_fault_like_cuda():
    got = launch(kernel_file("good_broadcast_basic.cu"), "k", 1, 2048, [np.zeros(1, np.float32),
                 np.zeros(1, np.float32), 1])
    assert got.fault == "invalid launch configuration"
    assert "1024" in got.fault_message


WMMA = r"""
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
extern "C" __global__ void k(const half* a, const half* b, float* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 1.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}
"""


def test_wmma_16x16x16_half_inputs_float_accumulator():
    rng = np.random.default_rng(5)
    a = rng.integers(-3, 4, (16, 16)).astype(np.float16)
    b = rng.integers(-3, 4, (16, 16)).astype(np.float16)  # read column-major: element (k, n) at n*16+k
    for variant, adversarial in (("fast", False), ("check", True)):
        got = launch(WMMA, "k", 1, 32, [a, b, np.zeros((16, 16), np.float32)], variant=variant,
                     adversarial=adversarial)
        assert got.fault is None and not got.diagnostics, got.diagnostics
        want = a.astype(np.float32) @ b.astype(np.float32).T + 1.0
        np.testing.assert_array_equal(got.arrays[2], want)


def test_wmma_needs_the_whole_warp():
    source = WMMA.replace("wmma::mma_sync(acc, fa, fb, acc);", "if (threadIdx.x < 16) wmma::mma_sync(acc, fa, fb, acc);")
    got = launch(source, "k", 1, 32, [np.zeros((16, 16), np.float16), np.zeros((16, 16), np.float16),
                                      np.zeros((16, 16), np.float32)])
    assert got.fault == "warp mask mismatch"
    assert "wmma::mma_sync" in got.fault_message and "wmma::store_matrix_sync" in got.fault_message


WMMA_PER_LANE = r"""
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
extern "C" __global__ void k(const half* a, const half* b, float* c, float* lanes) {
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a + warp * 256, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c + warp * 256, acc, 16, wmma::mem_row_major);
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = __float2half(__half2float(fa.x[i]) * (lane % 3));
    wmma::mma_sync(acc, fa, fb, acc);
    lanes[threadIdx.x] = acc.x[lane];
}
"""


def test_wmma_products_are_each_warps_and_each_lanes_own():
    # Lanes with the same tiles share one product (kdojo_wmma.h keeps the last one, compared by
    # content): two warps with different A tiles, then every lane's own A scaled by lane % 3.
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 4, (2, 16, 16)).astype(np.float16)
    b = rng.integers(-3, 4, (16, 16)).astype(np.float16)
    product = [a[w].astype(np.float32) @ b.astype(np.float32).T for w in range(2)]
    for variant, adversarial in (("fast", False), ("check", True)):
        got = launch(WMMA_PER_LANE, "k", 1, 64, [a, b, np.zeros((2, 16, 16), np.float32), np.zeros(64, np.float32)],
                     variant=variant, adversarial=adversarial)
        assert got.fault is None and not got.diagnostics, got.diagnostics
        np.testing.assert_array_equal(got.arrays[2], np.stack(product))
        want = [(1 + lane % 3) * product[t // 32].flat[lane] for t in range(64) for lane in [t % 32]]
        np.testing.assert_array_equal(got.arrays[3], np.array(want, np.float32))


WMMA_SHARED_TILE = r"""
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
extern "C" __global__ void k(const half* a, float* c) {
    __shared__ half tile[256];
    int w = threadIdx.x / 32;
    for (int i = threadIdx.x; i < FILLED; i += blockDim.x) tile[i] = a[i];
    BARRIER;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, tile, 16);
    wmma::load_matrix_sync(fb, tile, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c + w * 256, acc, 16, wmma::mem_row_major);
}
"""


@pytest.mark.parametrize("filled, barrier, kind", [(255, "__syncthreads()", "uninitialised_read"),
                                                   (256, "", "race")])
def test_a_wmma_tile_load_is_checked(filled, barrier, kind):
    # Every lane reads the whole tile but only lane 0's reads go to the checker (kdojo_wmma.h):
    # they still find an element never written and a tile read without the barrier after its writes.
    source = WMMA_SHARED_TILE.replace("FILLED", str(filled)).replace("BARRIER", barrier)
    got = launch(source, "k", 1, 64, [np.ones(256, np.float16), np.zeros((2, 16, 16), np.float32)],
                 variant="check", adversarial=True)
    assert kind in got.kinds(), got.diagnostics


ACTIVEMASK = r'''
extern "C" __global__ void k(unsigned* masks, unsigned* sides, int n) {
    int i = threadIdx.x;
    if (i >= n) return;  // these lanes exit; lane 32 calls __activemask() before lanes 40-63 have run
    masks[i] = __activemask();
    if (i % 2)
        sides[i] = __activemask();
    else
        sides[i] = __activemask();
}
'''


def test_activemask_never_counts_lanes_that_exited():
    for variant, adversarial in (("fast", False), ("check", True)):
        got = launch(ACTIVEMASK, "k", 1, 64, [np.zeros(64, np.uint32), np.zeros(64, np.uint32), 40],
                     variant=variant, adversarial=adversarial)
        assert got.fault is None and not got.diagnostics, got.diagnostics
        masks, sides = got.arrays
        assert list(masks[:40]) == [0xFFFFFFFF] * 32 + [0xFF] * 8 and not masks[40:].any()
        # the two sides of a branch are apart, as a diverged warp's
        assert list(sides[:40]) == [0x55555555, 0xAAAAAAAA] * 16 + [0x55, 0xAA] * 4
