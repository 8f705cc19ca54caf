"""Spellings learners write that NVRTC accepts must compile and run on the
emulator too: `__launch_bounds__` before or after `void`, qualifier orders,
pragmas, inline helpers, default template arguments, barrier predicates, the
less common intrinsics."""

import numpy as np
import pytest

from kernels.exercises import REPO_ROOT, load_exercises
from kernels.emu.target import EmuTarget
from kernels.pipeline import run_pipeline
from tests.emu.harness import launch

SAXPY_BODY = """(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
"""
LAUNCH_BOUNDS = {
    "after_void": 'extern "C" __global__ void __launch_bounds__(256) saxpy',
    "before_void": 'extern "C" __global__ __launch_bounds__(256) void saxpy',
    "after_void_min_blocks": 'extern "C" __global__ void __launch_bounds__(256, 2) saxpy',
    "before_void_min_blocks": 'extern "C" __global__ __launch_bounds__(256, 2) void saxpy',
    "own_line": 'extern "C" __global__ void\n__launch_bounds__(256, 2)\nsaxpy',
}


@pytest.fixture(scope="module")
def saxpy():
    return load_exercises(REPO_ROOT / "lessons")["elementwise.saxpy"]


@pytest.mark.parametrize("form", list(LAUNCH_BOUNDS), ids=list(LAUNCH_BOUNDS))
def test_launch_bounds_in_either_place_is_judged_accepted(saxpy, form):
    source = LAUNCH_BOUNDS[form] + SAXPY_BODY
    result = run_pipeline(saxpy, source, EmuTarget(), bench=False, seed=3, emit=lambda event: None)
    assert result["verdict"] == "accepted", (result["message"], result["diagnostics"])


def test_a_launch_past_launch_bounds_fails_as_on_a_gpu(saxpy):
    """A GPU refuses to launch more threads per block than `__launch_bounds__` allows (PTX .maxntid)."""
    source = 'extern "C" __global__ void __launch_bounds__(2 * 64, 4)\nsaxpy' + SAXPY_BODY
    result = run_pipeline(saxpy, source, EmuTarget(), bench=False, seed=3, emit=lambda event: None)
    assert result["verdict"] == "runtime_error", result["message"]
    assert "the launch has 256 threads per block, more than the kernel's __launch_bounds__(128)" in result["message"]
    assert "(line 2)" in result["message"]


def test_launch_bounds_are_checked_only_in_kernel_definitions():
    from kernels.emu.source import prepare

    source = ('template <int B> __device__ __launch_bounds__(B) float f(float v) { return v; }\n'
              'extern "C" __global__ __launch_bounds__(256) void g(float* p);\n'
              '#define KERNEL __global__ void __launch_bounds__(64)\n'
              'extern "C" __global__ void __launch_bounds__(2 * 64, 4)\nk(float* p) { p[0] = f(1.0f); }\n')
    out = prepare(source)
    assert out.count("\n") == source.count("\n")
    assert out.count("::kdojo::launch_bound(") == 1
    assert "k(float* p) { ::kdojo::launch_bound(static_cast<long long>(2 * 64), 5);" in out


def test_shared_declarations_of_several_become_one_named_static_each_on_their_lines():
    from kernels.emu.source import prepare

    source = ('extern "C" __global__ void k(float* p) {\n'
              '    __shared__ float qs[16][17],\n        ks[16][17], total;\n'
              '    __shared__ float* where;\n'  # a pointer: left to the check program's unnamed section
              '    p[0] = qs[0][0] + ks[1][1] + total;\n}\n')
    out = prepare(source)
    assert out.count("\n") == source.count("\n")
    for name in ("qs", "ks", "total"):
        assert f'KDOJO_SHARED_REF({name}_kdojo_, "{name}")' in out.splitlines()[1]
    assert "__shared__ float* where;" in out.splitlines()[3]
    assert "p[0] = qs[0][0]" in out.splitlines()[4]


MACRO_SHARED = r"""
#define SMEM __shared__
SMEM float staged[64];
#define DECLARE_SUMS __shared__ float sums[2];
extern "C" __global__ void k(const float* in, float* out) {
    DECLARE_SUMS
    staged[threadIdx.x] = in[threadIdx.x];
    if (threadIdx.x < 2) sums[threadIdx.x] = 0.0f;
    __syncthreads();
    if (threadIdx.x < 2) for (int j = 0; j < 32; ++j) sums[threadIdx.x] += staged[threadIdx.x * 32 + j];
    __syncthreads();
    out[threadIdx.x] = sums[threadIdx.x / 32];
}
"""


def test_a_macro_that_spells_shared_is_no_declaration_of_the_next_line():
    # The rewrite read `__shared__` at the end of `#define SMEM` together with the next line's
    # declaration up to its `;`, and replaced both (the macro, and a line of the file, were lost).
    from kernels.emu.source import prepare

    out = prepare(MACRO_SHARED)
    assert out.count("\n") == MACRO_SHARED.count("\n")
    assert "#define SMEM __shared__\nSMEM float staged[64];" in out
    assert 'KDOJO_SHARED_REF(sums_kdojo_, "sums")' in out  # a whole declaration in a macro: rewritten
    x = np.arange(64, dtype=np.float32)
    for variant, adversarial in (("fast", False), ("check", True)):
        got = launch(MACRO_SHARED, "k", 1, 64, [x, np.zeros(64, np.float32)], variant=variant,
                     adversarial=adversarial)
        assert got.fault is None and not got.diagnostics, (got.fault_message, got.diagnostics)
        np.testing.assert_array_equal(got.arrays[1], np.repeat([x[:32].sum(), x[32:].sum()], 32))


DYNAMIC_SHARED_ORDERS = r"""
extern "C" __global__ void k(const float* in, float* out) {
    extern volatile __shared__ float staged[];
    __shared__ extern float same_memory[];
    staged[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = same_memory[blockDim.x - 1 - threadIdx.x];
}
"""


def test_dynamic_shared_memory_in_the_other_orders_nvrtc_takes():
    # `extern volatile __shared__` and `__shared__ extern` were refused ("only extern "C" and
    # extern __shared__ declarations are supported"), though NVRTC compiles both.
    x = np.arange(64, dtype=np.float32)
    for variant, adversarial in (("fast", False), ("check", True)):
        got = launch(DYNAMIC_SHARED_ORDERS, "k", 1, 64, [x, np.zeros(64, np.float32)], shared=64 * 4,
                     variant=variant, adversarial=adversarial)
        assert got.fault is None and not got.diagnostics, (got.fault_message, got.diagnostics)
        np.testing.assert_array_equal(got.arrays[1], x[::-1])


SPELLINGS = r"""
#define UNROLL 4
static __device__ __forceinline__ float twice(float v) { return v + v; }
__device__ inline float same(float v) { return v; }
__device__ __inline__ float also_same(float v) { return v; }
__host__ __device__ static inline int clamp_index(int i, int n) { return min(max(i, 0), n - 1); }
template <typename T = float, int SCALE = 1> __device__ T scaled(T v) { return v * SCALE; }
template <int WIDTH = 32> __device__ float warp_sum(float v) {
#pragma unroll
    for (int o = WIDTH / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o, WIDTH);
    return v;
}
extern "C" __global__ void __launch_bounds__(256, 2)
k(const float* __restrict__ const in, float* const __restrict__ out, float const* __restrict side, int n) {
    __shared__ volatile float stage[256];
    __shared__ float a[4], b[4];
    float acc = 0.0f;
#pragma unroll UNROLL
    for (int j = 0; j < 4; ++j) acc += j;
    #pragma unroll (2)
    for (int j = 0; j < 2; ++j) acc -= j;
    float w = warp_sum<>(1.0f);  // 32, with the whole warp present
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += blockDim.x * gridDim.x) {
        unsigned int t = threadIdx.x;
        stage[t] = in[clamp_index((int)i, n)];
        if (t < 4) { a[t] = 1.0f; b[t] = 2.0f; }
        out[i] = twice(same(also_same(scaled<>(stage[t])))) + acc - 5.0f + (w - 32.0f) + side[0] * 0.0f
                 + (float)min(3u, t) * 0.0f + max(1.0f, 2.0f) - 2.0f;
    }
}
"""


def test_common_spellings_compile_and_run_in_both_builds():
    n = 1000
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    for variant, adversarial in (("fast", False), ("check", True)):
        got = launch(SPELLINGS, "k", 2, 256, [x, np.zeros(n, np.float32), np.ones(1, np.float32), n],
                     variant=variant, adversarial=adversarial)
        assert got.fault is None and not got.diagnostics, (got.fault_message, got.diagnostics)
        np.testing.assert_allclose(got.arrays[1], 2 * x, rtol=1e-5, atol=1e-6)


SYNC_PREDICATES = r"""
extern "C" __global__ void k(const int* flags, int* out) {
    int t = threadIdx.x;
    int count = __syncthreads_count(flags[t] != 0);
    int all = __syncthreads_and(flags[t] != 0);
    int any = __syncthreads_or(flags[t] > 1);
    int none = __syncthreads_or(0);
    if (t == 0) { out[3 * blockIdx.x] = count; out[3 * blockIdx.x + 1] = all; out[3 * blockIdx.x + 2] = any + 2 * none; }
}
"""


def test_syncthreads_count_and_or():
    every = np.ones(96, np.int32)
    two = np.zeros(96, np.int32)
    two[5], two[70] = 2, 1
    for variant, adversarial in (("fast", False), ("check", True)):
        results = []
        for flags in (every, two):
            got = launch(SYNC_PREDICATES, "k", 1, 96, [flags, np.zeros(3, np.int32)],
                         variant=variant, adversarial=adversarial)
            assert got.fault is None and not got.diagnostics, (got.fault_message, got.diagnostics)
            results.append(list(got.arrays[1]))
        assert results == [[96, 1, 0], [2, 0, 1]]


def test_syncthreads_count_skipped_is_a_divergent_barrier():
    source = r"""
extern "C" __global__ void k(int* out) {
    if (threadIdx.x < 16) return;
    int c = __syncthreads_count(1);
    if (threadIdx.x == 16) out[0] = c;
}
"""
    got = launch(source, "k", 1, 64, [np.zeros(1, np.int32)])
    assert "divergent_barrier" in got.kinds()
    assert got.arrays[0][0] == 48


INTRINSICS = r"""
extern "C" __global__ void k(unsigned* u, int* i, float* f) {
    if (threadIdx.x != 0) return;
    u[0] = __sad(3, 10, 1u);
    u[1] = __usad(10u, 3u, 2u);
    u[2] = __funnelshift_l(0x80000000u, 0x1u, 1u);
    u[3] = __funnelshift_r(0x2u, 0x1u, 1u);
    u[4] = __byte_perm(0x33221100u, 0x77665544u, 0x7531u);
    u[5] = __uhadd(0xFFFFFFFFu, 1u);
    u[6] = __funnelshift_lc(1u, 2u, 40u);
    u[7] = __funnelshift_rc(1u, 2u, 40u);
    i[0] = __hadd(-3, 0);
    i[1] = __rhadd(3, 0);
    i[2] = __double2int_rn(2.5);
    f[0] = __fadd_rz(1.0f, 1e-8f);
    f[1] = __fadd_ru(1.0f, 1e-8f);
    f[2] = __fdiv_rd(1.0f, 3.0f);
    f[3] = __fdiv_ru(1.0f, 3.0f);
    f[4] = __fmul_rn(1.5f, 2.0f) + __fsqrt_rz(4.0f) + __frsqrt_rn(4.0f);
}
"""


def test_integer_and_rounding_intrinsics():
    got = launch(INTRINSICS, "k", 1, 32, [np.zeros(8, np.uint32), np.zeros(3, np.int32), np.zeros(5, np.float32)])
    assert got.fault is None and not got.diagnostics, got.diagnostics
    u, i, f = got.arrays
    assert list(u) == [8, 9, 3, 0x80000001, 0x77553311, 0x80000000, 1, 2]
    assert list(i) == [-2, 2, 2]
    one_up = np.nextafter(np.float32(1), np.float32(2))
    assert f[0] == np.float32(1) and f[1] == one_up
    third = np.float32(1) / np.float32(3)
    assert f[2] < f[3] and {f[2], f[3]} >= {third} and f[3] == np.nextafter(f[2], np.float32(1))
    assert f[4] == np.float32(5.5)


MORE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <math_constants.h>
extern "C" __global__ void k(float* f, unsigned long long* u, int* i, __half* h) {
    atomicAdd(&h[0], __float2half(1.0f));  // every thread
    if (threadIdx.x != 0) return;
    __half2 p = __halves2half2(__habs(__float2half(-2.0f)), __float2half(3.0f));
    f[0] = __low2float(p) + __high2float(p);                       // 5
    __nv_bfloat162 q = __floats2bfloat162_rn(1.5f, 2.5f);
    f[1] = __low2float(q) * __high2float(q);                       // 3.75
    f[2] = norm3df(1.0f, 2.0f, 2.0f) + rhypotf(3.0f, 4.0f);        // 3.2
    f[3] = CUDART_PI_F;
    ulonglong2 w = make_ulonglong2(1ull, 2ull);
    u[0] = __brevll(w.x);                                          // 1 << 63
    u[1] = __umul64hi(0xFFFFFFFFFFFFFFFFull, 4ull);                // 3
    i[0] = __dp4a(0x01020304, 0x01010101, 10);                     // 1+2+3+4+10
    i[1] = __dp4a(static_cast<int>(0xFF000000u), 0x02000000, 0);   // -1 * 2
}
"""


def test_half_pairs_atomics_byte_dot_products_and_math_constants():
    got = launch(MORE, "k", 2, 32, [np.zeros(4, np.float32), np.zeros(2, np.uint64), np.zeros(2, np.int32),
                                     np.zeros(1, np.float16)])
    assert got.fault is None and not got.diagnostics, (got.fault_message, got.diagnostics)
    f, u, i, h = got.arrays
    assert list(f[:2]) == [5.0, 3.75] and f[2] == pytest.approx(3.2) and f[3] == np.float32(np.pi)
    assert list(u) == [1 << 63, 3] and list(i) == [20, -2] and h[0] == 64.0


def test_math_constants_only_where_included():
    source = 'extern "C" __global__ void k(float* f) { const float CUDART_PI_F = 3.0f; f[0] = CUDART_PI_F; }'
    got = launch(source, "k", 1, 1, [np.zeros(1, np.float32)])
    assert got.fault is None and got.arrays[0][0] == 3.0


MATH_MORE = r"""
extern "C" __global__ void k(float* f, double* d, unsigned long long* u) {
    f[0] = erfinvf(0.5f); f[1] = erfcinvf(0.3f); f[2] = erfinvf(-0.999f); f[3] = erff(erfinvf(0.25f));
    float s, c;
    sincospif(0.5f, &s, &c);
    f[4] = s; f[5] = c;
    d[0] = __hiloint2double(__double2hiint(-2.5), __double2loint(-2.5));
    u[0] = ullmin(3ull, 1ull << 40); u[1] = ullmax(3ull, 1ull << 40);
    __stwb(&f[6], __ldlu(&f[0]) + __ldcv(&f[1]));
}
"""


def test_inverse_error_functions_and_double_halves():
    got = launch(MATH_MORE, "k", 1, 1, [np.zeros(7, np.float32), np.zeros(1, np.float64), np.zeros(2, np.uint64)])
    assert got.fault is None, got.fault_message
    f, d, u = got.arrays
    assert f[0] == pytest.approx(0.4769362762, rel=1e-6) and f[1] == pytest.approx(0.7328690780, rel=1e-5)
    assert f[2] == pytest.approx(-2.3267537655, rel=1e-5) and f[3] == pytest.approx(0.25, rel=1e-6)
    assert f[4] == pytest.approx(1.0) and abs(f[5]) < 1e-6
    assert d[0] == -2.5 and list(u) == [3, 1 << 40] and f[6] == pytest.approx(f[0] + f[1])


def test_only_volatile_accesses_make_a_warp_synchronous_build():
    """`volatile` as a qualifier turns on the lockstep steps (kernels/emu/build.py); `asm volatile` does not."""
    from kernels.emu.build import _VOLATILE

    assert _VOLATILE.search("__device__ void warpReduce(volatile float* sdata, int tid)")
    assert _VOLATILE.search("__shared__ volatile float s[256];")
    assert not _VOLATILE.search('asm volatile("cp.async.commit_group;\\n" ::);')
    assert not _VOLATILE.search('__asm__ volatile("mov.u32 %0, %%laneid;" : "=r"(lane));')
    assert not _VOLATILE.search("int nonvolatile = 0; asm __volatile__(\"\");")


def test_cuda_std_headers_bring_their_library_headers():
    """<cuda/std/array> and <cuda/std/functional> add <array> / <functional> ahead of the
    runtime (kernels/emu/launcher.py); nothing else can be added that way."""
    from kernels.emu.launcher import translation_unit
    from kernels.emu.source import library_headers

    source = "#include <cuda/std/functional>\n#include <cuda/std/array>\n#include <cuda/std/array>\n#include <cmath>\n"
    assert library_headers(source) == ["functional", "array"]
    assert library_headers("#include <cuda/std/limits>\n") == []
    unit = translation_unit("", ["k"], library_headers(source))
    assert unit.startswith('#include <functional>\n#include <array>\n#include "kdojo_cuda.h"')
    with pytest.raises(ValueError):
        translation_unit("", ["k"], ["../../etc/passwd"])
