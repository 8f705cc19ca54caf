"""The profile object's pieces (#16): occupancy model, ptxas report, validator."""

from __future__ import annotations

import copy

import pytest

from kernels.profile import doc as prof
from kernels import contract as result


@pytest.mark.parametrize("threads, regs, smem, pct, blocks, limiter", [
    (256, 32, 0, 100.0, 8, "none"),
    (256, 128, 0, 25.0, 2, "registers"),        # 128 × 32 × 8 warps = 32768 registers a block
    (256, 32, 100 * 1024, 25.0, 2, "shared_memory"),  # (100 KiB + 1 KiB reserved) × 2 ≤ 228 KiB
    (32, 16, 0, 50.0, 32, "blocks_per_sm"),     # 32 blocks of one warp: half of 64 warps
    (768, 32, 0, 75.0, 2, "block_size"),        # 24 warps: two fit in 64
])
def test_h100_theoretical_occupancy_and_its_limiter(threads, regs, smem, pct, blocks, limiter):
    assert prof.occupancy(prof.H100, threads, regs, smem) == {
        "theoretical_pct": pct, "blocks_per_sm": blocks, "limiter": limiter}


PTXAS = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
ptxas         .     256 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 36 registers, used 1 barriers, 256 bytes cumulative stack size, 1024 bytes smem
ptxas info    : Compiling entry function 'plain' for 'sm_90'
ptxas info    : Function properties for plain
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 13 registers, used 1 barriers
submission.cu(3): warning #1105-D: #warning directive: ptxas info    : Used 1 registers
"""


def test_ptxas_report_gives_resources_per_kernel():
    assert prof.parse_ptxas(PTXAS) == {
        "k": {"registers_per_thread": 36, "static_shared_bytes": 1024, "stack_frame_bytes": 256, "spill_bytes": 12},
        "plain": {"registers_per_thread": 13, "static_shared_bytes": 0, "stack_frame_bytes": 0, "spill_bytes": 0},
    }


COUNTS = {"gld_req": 32, "gld_sectors": 1024, "gld_ideal": 128, "gst_req": 32, "gst_sectors": 128,
          "gst_ideal": 128, "shd_req": 0, "shd_wavefronts": 0, "shd_ideal": 0, "shd_max_ways": 0,
          "warp_inst": 64, "active_lanes": 2048, "atom_ops": 0, "atom_addrs": 0, "atom_max": 0, "truncated": 0,
          "gmem_inst": 64, "gmem_lanes": 2048}


def _profile() -> dict:
    from kernels.profile.findings import findings

    res = {"registers_per_thread": 16, "static_shared_bytes": 0, "stack_frame_bytes": 0, "spill_bytes": 0}
    kernels = [prof.kernel_entry("copy", (4, 1, 1), (256, 1, 1), 0, res, prof.metrics_from_counts(COUNTS))]
    return prof.build("emulator", "n=1024", kernels, findings(kernels))


def test_counts_become_metrics_and_a_finding():
    p = _profile()
    m = p["kernels"][0]["metrics"]
    assert (m["global_load_sectors_per_request"], m["global_load_ideal_sectors_per_request"]) == (32.0, 4.0)
    assert m["shared_wavefronts_per_request"] is None and m["warp_execution_efficiency_pct"] == 100.0
    assert m["dram_throughput_pct"] is None  # the emulator does not measure it: null, not a guess
    assert [(f["code"], f["params"]) for f in p["findings"]] == [
        ("profile_uncoalesced", {"kernel": "copy", "access": "load", "sectors": 32.0, "ideal": 4.0})]
    assert prof.validate(p) == []


def test_counts_of_code_beside_inline_ptx_give_no_finding_about_memory():
    from kernels.profile.findings import findings

    res = {"registers_per_thread": 128, "static_shared_bytes": 0, "stack_frame_bytes": 0, "spill_bytes": 0}
    kernels = [prof.kernel_entry("copy", (4, 1, 1), (256, 1, 1), 0, res, prof.metrics_from_counts(COUNTS))]
    assert [f["code"] for f in findings(kernels)] == ["profile_uncoalesced", "profile_low_occupancy"]
    # ptxas's registers are the real code's; the uncoalesced loads were the fallback branch's
    assert [f["code"] for f in findings(kernels, counted_other_code=True)] == ["profile_low_occupancy"]


def _doc(profile: dict) -> dict:
    return result.build(exercise="x.y", backend="emu", verdict="accepted", message="ok", profile=profile)


def test_the_result_document_carries_a_valid_profile():
    assert result.validate(_doc(_profile())) == []
    assert result.validate(_doc(_profile() | {"caveats": ["inline_ptx_fallback", "truncated"]})) == []
    assert "profile" not in result.build(exercise="x.y", backend="emu", verdict="accepted", message="ok")


@pytest.mark.parametrize("break_it, error", [
    (lambda p: p.update(source="guess"), "profile.source"),
    (lambda p: p.update(extra=1), "profile needs exactly"),
    (lambda p: p["kernels"][0]["metrics"].update(global_load_sectors_per_request=-1), "metrics"),
    (lambda p: p["kernels"][0]["metrics"].pop("tensor_pipe_pct"), "metrics"),
    (lambda p: p["kernels"][0]["resources"].update(registers_per_thread="many"), "resources"),
    (lambda p: p["kernels"][0]["occupancy"].update(limiter="vibes"), "occupancy"),
    (lambda p: p["findings"][0].update(code="unknown_code"), "findings[0]"),
    (lambda p: p["findings"][0]["params"].pop("ideal"), "findings[0]"),
    (lambda p: p.update(findings=p["findings"] * 4), "at most 3"),
    (lambda p: p.update(caveats=["unknown"]), "profile.caveats"),
    (lambda p: p.update(caveats=["truncated", "truncated"]), "profile.caveats"),
    (lambda p: p.update(caveats="truncated"), "profile.caveats"),
])
def test_the_validator_refuses_a_malformed_profile(break_it, error):
    p = copy.deepcopy(_profile())
    break_it(p)
    errors = result.validate(_doc(p))
    assert errors and any(error in e for e in errors), errors
