"""The emulator profiles at the benchmark's size (#26): which case it counts, how a sample of a
launch's blocks is asked for and scaled to the grid, and what a sampled profile says."""

from __future__ import annotations

import struct

import pytest

from kernels.profile import emu as profile_emu, run as profile_run
from kernels.exercises import REPO_ROOT, find_exercise
from kernels.emu.target import EmuTarget
from kernels.emu.protocol import REQUEST_MAGIC
from kernels.pipeline import run_pipeline

LESSONS = REPO_ROOT / "lessons"
GATHER = LESSONS / "06-coalescing" / "exercises" / "gather"


def test_a_sample_is_asked_for_in_the_request_mode_bits():
    request = struct.pack("<III", REQUEST_MAGIC, 0, 0) + b"rest"
    magic, mode = struct.unpack_from("<II", profile_emu.profile_request(request, 256))
    assert magic == REQUEST_MAGIC and mode == profile_emu.MODE_PROFILE | 256 << 8
    assert profile_emu.profile_request(request).endswith(b"\x00\x00\x00rest")
    with pytest.raises(ValueError):
        profile_emu.profile_request(request, 1 << 24)


def _counts(**given: int) -> dict[str, int]:
    return {k: given.get(k, 0) for k in profile_emu.COUNT_KEYS}


def test_totals_scale_with_the_grid_and_ratios_do_not():
    ran = _counts(blocks=4, gld_req=10, gld_sectors=40, gld_ideal=40, warp_inst=30, shd_max_ways=8,
                  gld_unique=40, atom_ops=8, atom_addrs=8, atom_max=1, gatom_ops=64, gatom_addrs=4, gatom_max=16)
    full = profile_emu.sample_scaled(ran, 100)
    assert full["blocks"] == 100 and full["gld_req"] == 250 and full["gld_sectors"] == 1000
    assert full["gld_sectors"] / full["gld_req"] == ran["gld_sectors"] / ran["gld_req"]  # a ratio stays
    assert full["warp_inst"] == 750 and full["gld_unique"] == 1000 and full["shd_max_ways"] == 8
    # few addresses (a histogram's bins): every block hits the same ones, their queue grows
    assert full["gatom_addrs"] == 4 and full["gatom_max"] == 400 and full["gatom_ops"] == 1600
    # a whole grid that ran is left as it is
    assert profile_emu.sample_scaled(dict(ran, blocks=100), 100) == dict(ran, blocks=100)


def test_atomics_on_many_addresses_grow_in_addresses_not_in_queue():
    ran = _counts(blocks=2, atom_ops=10_000, atom_addrs=10_000, atom_max=1)
    full = profile_emu.sample_scaled(ran, 20, few_addresses=4096)
    assert full["atom_addrs"] == 100_000 and full["atom_max"] == 1 and full["atom_ops"] == 100_000


def test_a_single_launch_samples_its_largest_benchmark_case_that_fits():
    exercise = find_exercise("coalescing.gather")
    picked = profile_run.pick_benchmark_case(exercise, {})
    # 2^26 elements are 768 MiB of buffers, past the cap; 2^24 are 192 MiB
    assert picked is not None and picked.benchmark and picked.case.label == "n=16777216 pattern=local"
    assert picked.sample_blocks == profile_emu.SAMPLE_BLOCKS and picked.launches[0].grid == (1056, 1, 1)


def test_launches_that_read_each_others_output_keep_a_test_case():
    scan = find_exercise("scan.inclusive")
    assert len(scan.launches) > 1 and profile_run.dependent_launches(scan)
    assert profile_run.pick_benchmark_case(scan, {}) is None
    assert not profile_run.dependent_launches(find_exercise("coalescing.gather"))


def test_a_block_that_walks_a_whole_gemm_keeps_a_test_case():
    wmma = find_exercise("gemm-epilogue.wmma_fp16")
    assert not profile_run.dependent_launches(wmma)
    assert profile_run.pick_benchmark_case(wmma, {"BM": 128, "BN": 128, "THREADS": 256, "SMEM_BYTES": 0}) is None


def test_the_memory_setting_bounds_the_sampled_case(monkeypatch):
    monkeypatch.setenv("KDOJO_EMU_MEMORY_MB", "600")  # the profiler's program: 400 MiB, buffers 100
    assert profile_run.max_buffer_bytes() == (400 << 20) // 4
    picked = profile_run.pick_benchmark_case(find_exercise("coalescing.gather"), {})
    assert picked is None  # 2^24 elements need 192 MiB


def judge(exercise_id: str, source: str) -> dict:
    return run_pipeline(find_exercise(exercise_id), source, EmuTarget(), bench=False, seed=3,
                        emit=lambda event: None)


def test_a_chunk_per_thread_gather_is_uncoalesced_at_the_benchmark_size(monkeypatch):
    # correct, and perfectly coalesced at any test size (one element per thread); at 2^24 each
    # thread walks 62 elements, so a warp's 32 loads are 62 floats apart
    monkeypatch.setenv("KDOJO_PROFILE_GPU", "H200")  # and the profile says which card it models
    doc = judge("coalescing.gather", (GATHER / "solutions" / "correct" / "chunk_per_thread.cu").read_text())
    assert doc["verdict"] == "accepted"
    prof = doc["profile"]
    assert prof["case"] == "n=16777216 pattern=local" and "caveats" not in prof and prof["gpu"] == "H200"
    assert [f["code"] for f in prof["findings"]] == ["profile_uncoalesced"]
    (k,) = prof["kernels"]
    assert k["grid"] == [1056, 1, 1] and k["metrics"]["global_load_sectors_per_request"] >= 16
    est = prof["estimate"]
    assert est["counted_case"] == prof["case"] and est["sample"]["grid_blocks"] == [1056] and est["gpu"] == "H200"
    assert prof["roofline"]["gpu"] == "H200"
    assert 2 <= est["sample"]["blocks"][0] <= profile_emu.SAMPLE_BLOCKS


STALLS_AT_BENCHMARK_SIZE = """
extern "C" __global__ void gather(const float* in, const int* idx, float* out, int N) {
    if (N > 1000000) { volatile int spin = 1; while (spin) {} }  // never at a test's size
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        out[i] = in[idx[i]];
}
"""


def test_a_kernel_that_stalls_only_at_the_benchmark_size_keeps_its_verdict():
    doc = judge("coalescing.gather", STALLS_AT_BENCHMARK_SIZE)
    assert doc["verdict"] == "accepted" and doc.get("profile") is None
