"""The emulator's profiler counts on hand-made kernels whose answers are known
exactly (#16): coalescing, bank conflicts, divergence, atomics per address."""

from __future__ import annotations

import numpy as np
import pytest

from kernels.emu.build import compile_profile_program
from kernels.emu.process import ProgramProcess
from kernels.emu.protocol import ARG_BUFFER, ARG_INT, WireBuffer, WireLaunch, encode_request
from kernels.profile.doc import metrics_from_counts
from kernels.profile.emu import launch_counts, parse_counts, profile_request
from tests.emu.harness import compile_source

GUARD = 64

COPY = """
__global__ void copy(const float* in, float* out, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(long long)i * stride % n + (long long)i * stride / n];
}
"""

TRANSPOSE = """
#define TILE 32
#ifndef PAD
#define PAD 0
#endif
__global__ void transpose(const float* in, float* out, int n) {
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    int tx = blockIdx.y * TILE + threadIdx.x, ty = blockIdx.x * TILE + threadIdx.y;
    out[ty * n + tx] = tile[threadIdx.x][threadIdx.y];
}
"""

DIVERGE = """
__global__ void diverge(float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % 32 < 16) out[i] = 1.0f;
    else out[i] = 2.0f;
}
"""

HISTOGRAM = """
__global__ void hist(const int* keys, unsigned* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[keys[i]], 1u);
}
"""


def run_counts(source: str, kernel: str, grid, block, args: list) -> dict[str, int]:
    return counts_of(compile_source(source, (kernel,)), kernel, grid, block, args)


def counts_of(built, kernel: str, grid, block, args: list) -> dict[str, int]:
    """One profiled launch on the profiler's program (the judge's: compiled beside the others)."""
    wire, wargs = [], []
    for a in args:
        if isinstance(a, np.ndarray):
            full = np.zeros(a.size + 2 * GUARD, dtype=a.dtype)
            full[GUARD:GUARD + a.size] = a.reshape(-1)
            wargs.append((ARG_BUFFER, len(wire)))
            wire.append(WireBuffer(f"b{len(wire)}", full.tobytes(), GUARD * a.itemsize, a.nbytes, a.itemsize))
        else:
            wargs.append((ARG_INT, a))
    request = encode_request(wire, [WireLaunch(kernel, grid, block, 0, tuple(wargs))], False)
    proc = ProgramProcess(compile_profile_program(built, 60), 30)
    try:
        got = proc.call(profile_request(request), 30.0)
    finally:
        proc.kill()
    assert got.fault_name is None, got.fault_message
    (counts,) = launch_counts(got)
    assert counts["truncated"] == 0
    return counts


def copy_counts(stride: int) -> dict[str, int]:
    n = 1024
    return run_counts(COPY, "copy", (n // 256, 1, 1), (256, 1, 1),
                      [np.arange(n, dtype=np.float32), np.zeros(n, np.float32), n, stride])


def test_a_coalesced_float_copy_touches_4_sectors_per_request():
    c = copy_counts(1)
    # 1024 threads = 32 warps; each warp loads once and stores once, 128 contiguous bytes
    assert (c["gld_req"], c["gld_sectors"], c["gld_ideal"]) == (32, 128, 128)
    assert (c["gst_req"], c["gst_sectors"], c["gst_ideal"]) == (32, 128, 128)
    assert c["shd_req"] == 0 and c["atom_ops"] == 0


def test_a_stride_32_copy_touches_32_sectors_per_load():
    c = copy_counts(32)
    assert (c["gld_req"], c["gld_sectors"]) == (32, 32 * 32)
    assert (c["gst_req"], c["gst_sectors"]) == (32, 32 * 4)  # the stores stay coalesced


@pytest.mark.parametrize("pad, ways", [(0, 32), (1, 1)])
def test_transpose_through_shared_memory_conflicts_only_without_padding(pad, ways):
    n = 64
    c = run_counts(f"#define PAD {pad}\n" + TRANSPOSE, "transpose", (2, 2, 1), (32, 32, 1),
                   [np.arange(n * n, dtype=np.float32), np.zeros(n * n, np.float32), n])
    warps = 4 * 32  # 4 blocks of 32 warps; each warp: one shared store (a row), one shared load (a column)
    assert c["shd_req"] == 2 * warps and c["shd_ideal"] == 2 * warps
    # the row store is conflict-free either way; the column load hits one bank 32 times without padding
    assert c["shd_wavefronts"] == warps * (1 + ways)
    assert c["shd_max_ways"] == ways
    assert (c["gmem_inst"], c["gmem_lanes"]) == (2 * warps, 2 * warps * 32)  # shared ones are not global
    assert (c["gld_sectors"], c["gst_sectors"]) == (warps * 4, warps * 4)


@pytest.mark.parametrize("spelling", [
    "__shared__ float tile[TILE][TILE + PAD], spare[4];",  # several declarators: each rewritten by name
    "BLOCK_SHARED float tile[TILE][TILE + PAD];",  # through a macro: the check program's unnamed section
])
@pytest.mark.parametrize("pad, ways", [(0, 32), (1, 1)])
def test_shared_memory_is_counted_however_its_declaration_is_spelled(spelling, pad, ways):
    # Both spellings counted nothing as shared before (softmax, cross-entropy, attention, RoPE
    # solutions declare `__shared__ float a[32], b[32];`): no wavefronts, their accesses lost.
    n = 64
    source = f"#define PAD {pad}\n#define BLOCK_SHARED __shared__\n" + \
        TRANSPOSE.replace("__shared__ float tile[TILE][TILE + PAD];", spelling)
    c = run_counts(source, "transpose", (2, 2, 1), (32, 32, 1),
                   [np.arange(n * n, dtype=np.float32), np.zeros(n * n, np.float32), n])
    warps = 4 * 32
    assert c["shd_req"] == 2 * warps and c["shd_wavefronts"] == warps * (1 + ways)
    assert (c["gmem_inst"], c["gld_sectors"], c["gst_sectors"]) == (2 * warps, warps * 4, warps * 4)


def test_half_warp_divergence_is_50_percent_efficient():
    c = run_counts(DIVERGE, "diverge", (2, 1, 1), (64, 1, 1), [np.zeros(128, np.float32)])
    # 4 warps, two stores each (one per side of the branch), 16 lanes each
    assert (c["warp_inst"], c["active_lanes"]) == (8, 8 * 16)
    assert (c["gmem_inst"], c["gmem_lanes"]) == (8, 8 * 16)
    assert (c["gst_req"], c["gst_sectors"], c["gst_ideal"]) == (8, 8 * 2, 8 * 2)


def test_atomics_per_address_counts_contention():
    n = 256
    keys = (np.arange(n) % 4).astype(np.int32)  # 4 bins, 64 increments each
    c = run_counts(HISTOGRAM, "hist", (1, 1, 1), (n, 1, 1), [keys, np.zeros(4, np.uint32), n])
    assert (c["atom_ops"], c["atom_addrs"], c["atom_max"]) == (256, 4, 64)
    assert c["gld_req"] == 8 and c["gld_sectors"] == 8 * 4


def test_the_check_program_counts_no_basic_block():
    # coverage is the profiler's program's alone: a call per basic block would slow every checked run
    built = compile_source(DIVERGE, ("diverge",))
    n = 64
    full = np.zeros(n + 2 * GUARD, np.float32)
    wire = [WireBuffer("b0", full.tobytes(), GUARD * 4, n * 4, 4)]
    request = encode_request(wire, [WireLaunch("diverge", (1, 1, 1), (64, 1, 1), 0, ((ARG_BUFFER, 0),))], False)
    proc = ProgramProcess(built.programs["check"], 30)
    try:
        (c,) = launch_counts(proc.call(profile_request(request), 30.0))
    finally:
        proc.kill()
    assert c["gst_req"] == 4 and (c["bb_inst"], c["code_inst"]) == (0, 0)
    # and the metric falls back to memory instructions there
    assert metrics_from_counts(c)["warp_execution_efficiency_pct"] == 50.0


def test_the_fast_program_and_plain_requests_count_nothing():
    built = compile_source(DIVERGE, ("diverge",))
    n = 64
    full = np.zeros(n + 2 * GUARD, np.float32)
    wire = [WireBuffer("b0", full.tobytes(), GUARD * 4, n * 4, 4)]
    request = encode_request(wire, [WireLaunch("diverge", (1, 1, 1), (64, 1, 1), 0, ((ARG_BUFFER, 0),))], False)
    for variant, req in (("fast", profile_request(request)), ("check", request)):
        proc = ProgramProcess(built.programs[variant], 30)
        try:
            got = proc.call(req, 30.0)
        finally:
            proc.kill()
        assert launch_counts(got) == []


@pytest.mark.parametrize("text", ["gld_req=1", "gld_req=-1;" + ";".join(f"k{i}=0" for i in range(15)),
                                  "evil=1;" + "gld_req=1", ""])
def test_forged_counts_are_refused(text):
    with pytest.raises(ValueError):
        parse_counts(text)


def test_sectors_are_counted_from_a_256_byte_aligned_array_as_on_a_gpu():
    # 1004 floats (+ 2 × 64 guard elements): the emulator puts the array's end against a
    # guard page, so its start is 16 bytes off a 32-byte boundary; cudaMalloc aligns to
    # 256 bytes, so a full warp's 128 bytes are 4 sectors, not 5
    n = 1004
    c = run_counts(COPY, "copy", (4, 1, 1), (256, 1, 1), [np.arange(n, dtype=np.float32), np.zeros(n, np.float32), n, 1])
    assert (c["gld_req"], c["gld_sectors"]) == (32, 31 * 4 + 2)  # the last warp: 12 lanes, 48 bytes
    assert (c["gst_req"], c["gst_sectors"]) == (32, 31 * 4 + 2)


WMMA = """
#include <mma.h>
using namespace nvcuda;
__global__ void tile_copy(const half* a, float* out) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::fill_fragment(acc, 0.0f);
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = __half2float(fa.x[i]);
    wmma::store_matrix_sync(out, acc, 16, wmma::mem_row_major);
}
"""


def test_a_wmma_fragment_is_counted_as_the_warps_wide_accesses_not_per_element():
    # one warp: a 16x16 half tile (512 bytes) loaded, a 16x16 float tile (1024 bytes) stored. A GPU
    # moves them with 16-byte-per-lane instructions: 1 load of 16 sectors, 2 stores of 16 sectors.
    # The emulator's lanes each read all 256 elements; counted per element that was 256 loads.
    c = run_counts(WMMA, "tile_copy", (1, 1, 1), (32, 1, 1),
                   [np.arange(256, dtype=np.float16), np.zeros(256, np.float32)])
    assert (c["gld_req"], c["gld_sectors"], c["gld_ideal"]) == (1, 16, 16)
    assert (c["gst_req"], c["gst_sectors"], c["gst_ideal"]) == (2, 32, 32)
    assert (c["warp_inst"], c["active_lanes"], c["accesses"]) == (3, 96, 96)
    assert (c["gld_unique"], c["gst_unique"]) == (16, 32)


# Warp execution efficiency over all executed code (every basic block, trace-pc): the same
# program run with different arguments, so that whatever the compiler made of the code around
# it cancels out and the divergent part's lanes can be asserted exactly.
ARITH = """
__global__ void arith(float* out, int lim, int k) {
    int lane = threadIdx.x % 32;
    float x = threadIdx.x;
    if (lane < lim) {
        for (int j = 0; j < k; ++j) x = x * 1.0001f + 0.5f;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
"""


def test_half_warp_divergence_over_arithmetic_is_50_percent_efficient():
    built = compile_source(ARITH, ("arith",))

    def run(lim, k):
        return counts_of(built, "arith", (2, 1, 1), (64, 1, 1), [np.zeros(128, np.float32), lim, k])

    half10, half20, full10, full20 = run(16, 10), run(16, 20), run(32, 10), run(32, 20)
    # no memory instruction diverges: only the store, by all lanes
    assert (half20["warp_inst"], half20["active_lanes"]) == (4, 4 * 32)
    # the warps issue the same code whether 16 or 32 lanes loop
    for a, b in ((half10, full10), (half20, full20)):
        assert (a["bb_inst"], a["code_inst"]) == (b["bb_inst"], b["code_inst"])
    # the 10 extra iterations: issued by each of the 4 warps, with 16 lanes of 32 (with 32 of 32)
    for inst, lanes in (("bb_inst", "bb_lanes"), ("code_inst", "code_lanes"), ("code_inst", "code_pred_lanes")):
        extra = half20[inst] - half10[inst]
        assert extra > 0 and extra % 40 == 0
        assert half20[lanes] - half10[lanes] == 16 * extra  # 50%
        assert full20[lanes] - full10[lanes] == 32 * extra  # 100%
    assert half20["bb_dropped"] == 0
    # the whole kernel tends to 50% as the divergent loop grows (the entry and the store: 32 lanes)
    eff = metrics_from_counts(run(16, 1000))["warp_execution_efficiency_pct"]
    assert 50.0 < eff < 51.0


TREE = """
__global__ void tree(float* data, int a, int b) {
    __shared__ float buf[64];
    int lane = threadIdx.x;
    buf[lane] = data[blockIdx.x * 32 + lane];
    buf[lane + 32] = 0.0f;
    __syncwarp();
    float acc = 0.0f;
    for (int s = 16; s > 0; s >>= 1) {
        if (lane < s * a + b) acc += buf[lane + s];
        __syncwarp();
    }
    data[blockIdx.x * 32 + lane] = acc;
}
"""


def test_a_tree_reductions_narrowing_steps_run_19_percent_of_lanes_unless_predicated():
    built = compile_source(TREE, ("tree",))

    def run(a, b):  # a step adds when lane < s * a + b
        return counts_of(built, "tree", (3, 1, 1), (32, 1, 1), [np.ones(96, np.float32), a, b])

    tree, every, none = run(1, 0), run(0, 32), run(0, 0)
    warps = 3
    for inst, lanes in (("bb_inst", "bb_lanes"), ("code_inst", "code_lanes")):
        assert tree[inst] == every[inst]  # each step's body is issued whenever one lane takes it
        body = every[inst] - none[inst]  # the body's 5 steps in each warp
        assert body > 0 and body % (5 * warps) == 0
        assert every[lanes] - none[lanes] == 32 * body
        # by hand: steps s = 16, 8, 4, 2, 1 take 16 + 8 + 4 + 2 + 1 = 31 lanes of 5 × 32: 19.375%
        assert (tree[lanes] - none[lanes]) * 5 == 31 * body
    # a GPU compiler predicates so short a body (no branch): ncu counts its off lanes as active
    body = every["code_inst"] - none["code_inst"]
    assert tree["code_pred_lanes"] - none["code_pred_lanes"] == 32 * body
    assert metrics_from_counts(tree)["warp_execution_efficiency_pct"] == 100.0
    # the shared loads alone (the memory-instruction count): 5 steps, 31 lanes of 160
    assert (tree["shd_req"] - none["shd_req"], tree["accesses"] - none["accesses"]) == (5 * warps, 31 * warps)


STEPS = """
__global__ void steps(float* out) {
    __shared__ float s[32 * 5];
    int lane = threadIdx.x;
    for (int i = lane; i < 160; i += 32) s[i] = i;
    __syncthreads();
    float acc = 0.0f;
    int step = 0;
    for (int stride = 1; stride < 32; stride <<= 1, ++step) {
        int partner = lane ^ stride;
        if (partner > lane) acc += s[partner + 32 * step];
        __syncthreads();
    }
    out[lane] = acc;
}
"""


def test_a_lane_that_skips_a_step_is_not_paired_with_its_neighbours_next_step():
    # the bitonic network's pattern (lesson 11's xor_partner.cu): at each step the lanes whose
    # partner is above them read it. Each step's 16 loads hit 16 banks: 1 wavefront. Paired by
    # "the n-th execution of the load" alone, lane 1's first load (step 2) met lane 2's (step 1)
    # in the same bank, another word: 20 wavefronts, 5-way, where a GPU issues 10 conflict-free.
    c = run_counts(STEPS, "steps", (1, 1, 1), (32, 1, 1), [np.zeros(32, np.float32)])
    # 5 fill stores of 32 lanes, then 5 steps' loads of 16 lanes
    assert (c["shd_req"], c["shd_wavefronts"], c["shd_max_ways"]) == (10, 10, 1)
    assert c["active_lanes"] == 5 * 32 + 5 * 16 + 32  # and the store to out


MIXED_WIDTHS = """
__global__ void mixed(const uint4* w, const float* s, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    uint4 v = w[i];                  // one 16-byte load per lane: 512 bytes, 16 sectors a warp
    out[i] = s[i] * (float)(v.x + v.y + v.z + v.w);
}
"""


def test_a_vector_load_is_one_request_not_four_beside_a_scalar_one():
    # A GPU issues uint4 as one LDG.128 (16 sectors) beside the scalar LDG (4 sectors): 2 requests
    # a warp, 20 sectors. Counted as four 4-byte loads (the CPU's scalarised copy) the vector part
    # weighed 4 times: 5 requests, 68 sectors, 13.6 per request instead of 10.
    n = 256
    words = np.arange(4 * n, dtype=np.uint32)
    c = run_counts(MIXED_WIDTHS, "mixed", (n // 128, 1, 1), (128, 1, 1),
                   [words, np.ones(n, np.float32), np.zeros(n, np.float32)])
    warps = n // 32
    assert (c["gld_req"], c["gld_sectors"], c["gld_ideal"]) == (2 * warps, 20 * warps, 20 * warps)
    assert metrics_from_counts(c)["global_load_sectors_per_request"] == 10.0


BROADCAST_PAIR = """
__global__ void pair(float* out) {
    __shared__ float2 stats[4];
    if (threadIdx.x < 4) stats[threadIdx.x] = make_float2(threadIdx.x, 1.0f);
    __syncthreads();
    float2 m = stats[0];             // every lane the same 8 bytes: one wavefront
    float2 own = stats[threadIdx.x % 4];  // 4 distinct pairs, 32 bytes: still one
    out[threadIdx.x] = m.x + m.y + own.x;
}
"""


def test_a_broadcast_8_byte_shared_read_is_one_wavefront():
    c = run_counts(BROADCAST_PAIR, "pair", (1, 1, 1), (32, 1, 1), [np.zeros(32, np.float32)])
    # the fill (1 request of 4 lanes) and the two reads: 3 requests, 3 wavefronts, no conflict
    assert (c["shd_req"], c["shd_wavefronts"], c["shd_ideal"], c["shd_max_ways"]) == (3, 3, 3, 1)


LANE_ZERO_LOOP = """
__global__ void lane0(const float* in, float* out, int n) {
    float v = 0.0f;
    if (threadIdx.x % 32 == 0)
        for (int i = 0; i < n; ++i) v += in[i] * in[n - 1 - i];   // one lane's own loop
    out[blockIdx.x * blockDim.x + threadIdx.x] = __shfl_sync(0xffffffffu, v, 0);
}
"""


def test_one_lanes_loop_inside_a_branch_is_not_counted_as_predicated():
    # A GPU compiler if-converts a short branch that the warp runs once, not a loop that one lane
    # runs n times while the others wait: its blocks count 1 lane of 32, predicated or not.
    built = compile_source(LANE_ZERO_LOOP, ("lane0",))
    c = counts_of(built, "lane0", (2, 1, 1), (64, 1, 1), [np.ones(16, np.float32), np.zeros(128, np.float32), 16])
    assert c["bb_pred_lanes"] == c["bb_lanes"]
    assert c["code_pred_lanes"] == c["code_lanes"]
    assert metrics_from_counts(c)["warp_execution_efficiency_pct"] < 50.0


WIDE_SHARED = """
struct Stats { float n, mean, m2; };   // 12 bytes, 4-byte aligned: no vector access on a GPU
__global__ void wide(float* out) {
    __shared__ float4 quads[32];
    __shared__ Stats part[32];
    quads[threadIdx.x] = make_float4(threadIdx.x, 1.0f, 2.0f, 3.0f);
    part[threadIdx.x] = Stats{1.0f, (float)threadIdx.x, 0.0f};
    __syncthreads();
    float4 all = quads[0];             // every lane the same 16 bytes
    float4 own = quads[threadIdx.x];   // 32 distinct float4s: 512 bytes
    Stats st = part[threadIdx.x];      // three 4-byte loads at a stride of 3 words: no conflict
    out[threadIdx.x] = all.x + own.y + st.mean;
}
"""


def test_16_byte_shared_accesses_go_a_half_warp_at_a_time_and_a_12_byte_struct_word_by_word():
    c = run_counts(WIDE_SHARED, "wide", (1, 1, 1), (32, 1, 1), [np.zeros(32, np.float32)])
    # requests: the float4 store, 3 word stores of the struct, the two float4 loads, 3 word loads
    # wavefronts: 4 (512 distinct bytes) + 3 + 2 (a broadcast, once per half-warp) + 4 + 3
    assert (c["shd_req"], c["shd_wavefronts"], c["shd_max_ways"]) == (9, 16, 2)


UNROLLED_KEPT = """
__global__ void kept(float* out) {
    int lane = threadIdx.x;
#pragma unroll
    for (int j = 0; j < 4; ++j)
        if ((lane + j) % 2 == 0) out[j * 32 + lane] = 1.0f;   // half the lanes each step, not the same half
}
"""


def test_an_unrolled_loops_steps_are_instructions_of_their_own():
    # nvcc unrolls the loop: four stores, each by the 16 lanes that keep that step, 4 sectors each.
    # Paired by each lane's n-th store instead, lane 1's first store (step 1) met lane 0's (step 0):
    # requests spanning two steps' rows, 8 sectors where a GPU touches 4.
    c = run_counts(UNROLLED_KEPT, "kept", (1, 1, 1), (32, 1, 1), [np.zeros(128, np.float32)])
    assert (c["gst_req"], c["gst_sectors"]) == (4, 16)


def test_pragma_unroll_becomes_gccs_own_with_a_bounded_count():
    from kernels.emu.build import UNROLL_DEFAULT, UNROLL_MAX, gcc_unroll
    text = "#pragma unroll\n  # pragma unroll 4\n#pragma unroll (8)\n#pragma nounroll\n#pragma unroll 1000000\n"
    assert gcc_unroll(text).splitlines() == [
        f"#pragma GCC unroll {UNROLL_DEFAULT}", "#pragma GCC unroll 4", "#pragma GCC unroll 8",
        "#pragma GCC unroll 1", f"#pragma GCC unroll {UNROLL_MAX}"]


# Scalar shared accesses that nvcc merges into one vector access (LDS.64 / LDS.128, STS.*): an
# unrolled run at adjacent addresses it can prove aligned. A 16-byte access is served a half-warp
# at a time, so a broadcast LDS.128 is 2 wavefronts (ncu), four scalar broadcasts 4.
FILL = """
    __shared__ float s[64];
    s[threadIdx.x] = threadIdx.x;
    s[threadIdx.x + 32] = 1.0f;       // 2 stores, 1 wavefront each
    __syncthreads();
    float acc = 0.0f;
"""
EIGHT_UNROLLED = "__global__ void eight(float* out, int n) {" + FILL + """
#pragma unroll
    for (int j = 0; j < 8; ++j) acc += s[j];     // s[0..7] by every lane
    out[threadIdx.x] = acc;
}
"""
RUN_FROM = "__global__ void run(float* out, int start) {" + FILL + """
    for (int j = start; j < start + 8; ++j) acc += s[j];   // a loop: one instruction in the CPU's program
    out[threadIdx.x] = acc;
}
"""
SHIFTED = "__global__ void shifted(float* out, int n) {" + FILL + """
#pragma unroll
    for (int j = 0; j < 4; ++j) acc += s[threadIdx.x + j];   // each lane's run starts at its own word
    out[threadIdx.x] = acc;
}
"""


@pytest.mark.parametrize("source, kernel", [(EIGHT_UNROLLED, "eight"), (RUN_FROM, "run")])
def test_eight_adjacent_aligned_shared_reads_are_two_lds128(source, kernel):
    c = run_counts(source, kernel, (1, 1, 1), (32, 1, 1), [np.zeros(32, np.float32), 0])
    # the 2 fill stores, then s[0..3] and s[4..7] as two broadcast LDS.128 of 2 wavefronts each
    assert (c["shd_req"], c["shd_wavefronts"], c["shd_max_ways"]) == (2 + 2, 2 + 2 * 2, 1)
    assert (c["warp_inst"], c["active_lanes"], c["accesses"]) == (5, 5 * 32, 5 * 32)


@pytest.mark.parametrize("start, requests, wavefronts", [(1, 8, 8), (2, 4, 4), (4, 2, 4)])
def test_a_run_from_a_runtime_start_merges_as_far_as_every_execution_is_aligned(start, requests, wavefronts):
    # Static: a run is merged where every execution of it is aligned, here decided by the launch's
    # argument. From s[1] none is (8 scalar broadcasts); from s[2] every pair is 8-aligned (4
    # LDS.64, a broadcast of 1 wavefront); from s[4] two LDS.128 (2 wavefronts each).
    c = run_counts(RUN_FROM, "run", (1, 1, 1), (32, 1, 1), [np.zeros(32, np.float32), start])
    assert (c["shd_req"], c["shd_wavefronts"]) == (2 + requests, 2 + wavefronts)


def test_a_run_whose_alignment_depends_on_the_lane_is_not_merged():
    # lane t reads s[t..t+3]: aligned for lanes 0, 4, 8, ... only, so nvcc cannot merge it for any:
    # 4 loads of 32 neighbouring words, 1 wavefront each
    c = run_counts(SHIFTED, "shifted", (1, 1, 1), (32, 1, 1), [np.zeros(32, np.float32), 0])
    assert (c["shd_req"], c["shd_wavefronts"]) == (2 + 4, 2 + 4)


THREE = """
__global__ void three(float* out) {
    __shared__ float taps[8];
    __shared__ float end3[3];
    if (threadIdx.x < 8) taps[threadIdx.x] = threadIdx.x;
    if (threadIdx.x < 3) end3[threadIdx.x] = threadIdx.x;
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int j = 0; j < 3; ++j) acc += taps[j] * end3[j];
    out[threadIdx.x] = acc;
}
"""


def test_three_aligned_words_are_one_lds128_where_a_fourth_is_in_the_array():
    # nvcc loads taps[0..2] as one LDS.128 (taps[3] exists), end3[0..2] as LDS.64 + LDS (its
    # fourth word would be past the array): 1 + 2 loads, 2 + 1 + 1 wavefronts; 2 fill stores
    c = run_counts(THREE, "three", (1, 1, 1), (32, 1, 1), [np.zeros(32, np.float32)])
    assert (c["shd_req"], c["shd_wavefronts"]) == (2 + 3, 2 + 4)


QUADS = """
__global__ void quads(float* out) {
    __shared__ float s[128];
#pragma unroll
    for (int j = 0; j < 4; ++j) s[4 * threadIdx.x + j] = threadIdx.x + j;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}
"""


def test_four_adjacent_aligned_shared_stores_are_one_sts128():
    # Scalar: 4 stores at a stride of 4 words, 4-way bank conflicts, 16 wavefronts. As one STS.128:
    # 512 distinct bytes, 256 a half-warp, 4 wavefronts. Then one conflict-free load.
    c = run_counts(QUADS, "quads", (1, 1, 1), (32, 1, 1), [np.zeros(32, np.float32)])
    assert (c["shd_req"], c["shd_wavefronts"], c["shd_max_ways"]) == (1 + 1, 4 + 1, 2)


ROW_TIMES_COLUMN = """
__global__ void row_col(float* out) {
    __shared__ float a[4][8];
    __shared__ float b[8][32];
    const int lane = threadIdx.x, row = lane / 8;
    a[row][lane % 8] = lane;
    for (int k = 0; k < 8; ++k) b[k][lane] = k;
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += a[row][k] * b[k][lane];   // a GEMM's inner loop
    out[lane] = acc;
}
"""


def test_a_row_read_between_column_reads_is_still_merged():
    # The row a[row][0..7] is two LDS.128 per warp although b's loads come between its words: a
    # half-warp reads 2 rows (8 words, 8 banks), 1 wavefront each half. b[k][lane]: 8 scalar loads
    # of 1 wavefront. Fill: 1 + 8 stores of 1 wavefront.
    c = run_counts(ROW_TIMES_COLUMN, "row_col", (1, 1, 1), (32, 1, 1), [np.zeros(32, np.float32)])
    assert (c["shd_req"], c["shd_wavefronts"]) == (9 + 2 + 8, 9 + 2 * 2 + 8)


def test_the_instrumentations_own_code_weighs_nothing():
    # A memory access in the profiler's program is the GPU's load plus code a GPU never runs:
    # the hook's call and the load of its argument, an alignment check. The metric's weight
    # (work_*) leaves those out; arithmetic weighs what it did before (code_*, the raw bytes).
    arith = compile_source(ARITH, ("arith",))
    loads = compile_source(LANE_ZERO_LOOP, ("lane0",))

    def steps(built, kernel, args_of):
        short, long_ = (counts_of(built, kernel, (1, 1, 1), (32, 1, 1), args_of(k)) for k in (10, 20))
        return {key: long_[key] - short[key] for key in ("code_inst", "work_inst", "code_lanes", "work_lanes")}

    # ten more steps of x = x * 1.0001f + 0.5f: no memory access, the same weight either way
    a = steps(arith, "arith", lambda k: [np.zeros(32, np.float32), 32, k])
    assert a["work_inst"] == a["code_inst"] > 0 and a["work_lanes"] == a["code_lanes"]
    # ten more steps of v += in[i] * in[n - 1 - i]: two loads each, their hooks left out
    ones = np.ones(64, np.float32)
    b = steps(loads, "lane0", lambda n: [ones, np.zeros(32, np.float32), n])
    assert 0 < b["work_inst"] < b["code_inst"] and b["work_lanes"] == b["work_inst"]  # one lane of 32 runs them
    # the whole launch: work never exceeds the raw bytes, block for block
    c = counts_of(loads, "lane0", (1, 1, 1), (32, 1, 1), [ones, np.zeros(32, np.float32), 16])
    assert 0 < c["work_inst"] < c["code_inst"] and c["work_pred_lanes"] <= c["code_pred_lanes"]
    assert metrics_from_counts(c)["warp_execution_efficiency_pct"] == round(
        100 * c["work_pred_lanes"] / (32 * c["work_inst"]), 1)


WMMA_SHARED = """
#include <mma.h>
using namespace nvcuda;
__global__ void frag(const half* g, float* out, int loads, int stores) {
    __shared__ __align__(128) half sa[16 * LD];
    __shared__ __align__(128) float sc[16 * SLD];
    for (int i = threadIdx.x; i < 256; i += 32) sa[(i / 16) * LD + i % 16] = g[i];
    __syncwarp();
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int r = 0; r < loads; ++r) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
        wmma::load_matrix_sync(fa, sa, LD);
        wmma::load_matrix_sync(fb, sa, LD);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    for (int s = 0; s < stores; ++s) wmma::store_matrix_sync(sc, fc, SLD, wmma::mem_row_major);
    __syncwarp();
    out[threadIdx.x] = sc[threadIdx.x];
}
"""


# As an H100 counts them (ncu, 2026-11-27, docs/benchmarks.md): a 16 x 16 half tile is one
# ldmatrix.x4, 4 wavefronts when its 8-row matrices' rows fall on distinct banks (24 or 40 halves a
# row), 8 when two rows share them (16: 32-byte rows), 32 when all eight do (64: 128-byte rows);
# an fp32 accumulator stored row-major is four 64-bit stores, 2 wavefronts each at a 24-float row,
# 8 at 32 floats (every row on the same banks), 4 at 48.
@pytest.mark.parametrize("ld, load_waves", [(16, 8), (24, 4), (40, 4), (64, 32)])
@pytest.mark.parametrize("sld, store_waves", [(24, 2), (32, 8), (48, 4)])
def test_wmma_fragments_in_shared_memory_count_as_an_h100_does(ld, load_waves, sld, store_waves):
    built = compile_source(f"#define LD {ld}\n#define SLD {sld}\n" + WMMA_SHARED, ("frag",))
    g = np.ones(256, np.float16)

    def run(loads, stores):
        return counts_of(built, "frag", (1, 1, 1), (32, 1, 1), [g, np.zeros(32, np.float32), loads, stores])

    base, more_loads, more_stores = run(1, 1), run(2, 1), run(1, 2)
    # one more A and one more B fragment: two ldmatrix.x4, one request each
    assert more_loads["shd_req"] - base["shd_req"] == 2
    assert more_loads["shd_wavefronts"] - base["shd_wavefronts"] == 2 * load_waves
    assert more_loads["shd_ideal"] - base["shd_ideal"] == 2 * 4
    # one more accumulator store: four 64-bit stores
    assert more_stores["shd_req"] - base["shd_req"] == 4
    assert more_stores["shd_wavefronts"] - base["shd_wavefronts"] == 4 * store_waves
    assert more_stores["shd_ideal"] - base["shd_ideal"] == 4 * 2
    # the worst bank: the tile's rows per bank group (1, 2 or 8), the accumulator's words per bank
    assert base["shd_max_ways"] >= max(load_waves // 4, store_waves)


# (#26) Loads in flight together: a thread's global loads before its next store or barrier are one
# round; a block waits for its busiest thread's rounds.
STAGE_THEN_STORE = """
__global__ void stage(const float* x, float* y) {
    __shared__ float tile[4 * 64];
    const int base = blockIdx.x * 256, t = threadIdx.x;
    float v[4];
    for (int q = 0; q < 4; ++q) v[q] = x[base + t + 64 * q];   // four loads, then four stores
    for (int q = 0; q < 4; ++q) tile[t + 64 * q] = v[q];
    __syncthreads();
    y[base + t] = tile[255 - t];
}
"""
STAGE_EACH = """
__global__ void stage(const float* x, float* y) {
    __shared__ float tile[4 * 64];
    const int base = blockIdx.x * 256, t = threadIdx.x;
    for (int q = 0; q < 4; ++q) tile[t + 64 * q] = x[base + t + 64 * q];  // each load, then its store
    if (t == 0)  // one thread's three more rounds (y may alias x: each load waits for the store
        for (int q = 0; q < 3; ++q) y[q] = 2.0f * x[768 + 8 * (3 * blockIdx.x + q)];  // before), new sectors
    if (t == 1)  // three more loads of sectors loaded before: hits, no wait on DRAM
        for (int q = 0; q < 3; ++q) y[4 + q] = 2.0f * x[base + q];
    __syncthreads();
    y[base + t] = tile[255 - t];
}
"""


@pytest.mark.parametrize("source, rounds", [(STAGE_THEN_STORE, 1), (STAGE_EACH, 7)])
def test_loads_before_a_store_are_one_round_and_a_block_waits_for_its_busiest_thread(source, rounds):
    x = np.arange(4 * 256, dtype=np.float32)
    c = run_counts(source, "stage", (3, 1, 1), (64, 1, 1), [x, np.zeros(3 * 256, np.float32)])
    assert c["gld_rounds"] == 3 * rounds
    more = 6 if rounds > 1 else 0  # threads 0 and 1 each load three times more, one lane a warp
    assert c["gld_req"] == 3 * (4 * 2 + more)
    # in 1/1024ths of a request: every staging request and thread 0's bring only new sectors,
    # thread 1's none
    assert c["gld_req_new"] == 1024 * 3 * (4 * 2 + more // 2)
    assert c["block_barriers"] == 3 and c["block_collectives"] == 0


SCAN_STEPS = """
__global__ void steps(const int* x, int* y) {
    __shared__ int total[2];
    int v = x[blockIdx.x * 64 + threadIdx.x];
    for (int d = 1; d < 32; d *= 2) {
        const int up = __shfl_up_sync(0xffffffffu, v, d);
        if (threadIdx.x % 32 >= d) v += up;
    }
    if (threadIdx.x % 32 == 31) total[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) total[1] += total[0] + __shfl_sync(1u, v, 0);
    __syncthreads();
    y[blockIdx.x * 64 + threadIdx.x] = v + (threadIdx.x >= 32 ? total[0] : 0);
}
"""


def test_a_blocks_chain_counts_its_busiest_threads_shuffles_and_barriers():
    c = run_counts(SCAN_STEPS, "steps", (2, 1, 1), (64, 1, 1),
                   [np.arange(128, dtype=np.int32), np.zeros(128, np.int32)])
    assert c["block_collectives"] == 2 * 6  # thread 0: five steps of the scan and one more shuffle
    assert c["block_barriers"] == 2 * 2
    assert c["gld_rounds"] == 2 and c["gld_req_new"] == 1024 * 4


NEIGHBOUR_STORES = """
__global__ void spread(float* y, int n) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 4; ++j)            // lane l writes words 4l .. 4l + 3: 16 bytes apart a lane
        if (4 * t + j < n) y[4 * t + j] = 1.0f;
}
"""
COLUMN_STORES = """
__global__ void spread(float* y, int n) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 4; ++j)            // a column a step: a store never meets the thread's last sector
        if (t + 32 * 32 * j < n) y[32 * t + 32 * 32 * j] = 1.0f;
}
"""


@pytest.mark.parametrize("source, l2", [(NEIGHBOUR_STORES, 16), (COLUMN_STORES, 128)])
def test_a_threads_stores_into_the_sector_it_stored_to_reach_l2_once(source, l2):
    c = run_counts(source, "spread", (1, 1, 1), (32, 1, 1), [np.zeros(4096, np.float32), 4096])
    assert c["gst_req"] == 4
    assert c["gst_sectors"] == (64 if source is NEIGHBOUR_STORES else 128)
    assert c["gst_l2"] == l2
