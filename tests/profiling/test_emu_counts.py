"""The emulator's profiler counts on hand-made kernels whose answers are known
exactly (#16): coalescing, bank conflicts, divergence, atomics per address."""

from __future__ import annotations

import numpy as np
import pytest

from kernels.emu.process import ProgramProcess
from kernels.emu.protocol import ARG_BUFFER, ARG_INT, WireBuffer, WireLaunch, encode_request
from kernels.profile_emu import launch_counts, parse_counts, profile_request
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
    built = compile_source(source, (kernel,))
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
    proc = ProgramProcess(built.programs["check"], 30)
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
