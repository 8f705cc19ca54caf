"""The profile of a passing attempt on the emulator, end to end through the
judge's pipeline (#16): the finding a learner should get, and no other."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from kernels import contract as result
from kernels.exercises import REPO_ROOT, find_exercise
from kernels.emu.target import EmuTarget
from kernels.pipeline import run_pipeline

LESSONS = REPO_ROOT / "lessons"
TRANSPOSE = LESSONS / "07-shared-tiling" / "exercises" / "transpose"


def judge(exercise_id: str, source: str, exercise=None) -> dict:
    exercise = exercise or find_exercise(exercise_id)
    doc = run_pipeline(exercise, source, EmuTarget(), bench=False, seed=3, emit=lambda event: None)
    assert result.validate(doc) == []
    return doc


def codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["profile"]["findings"]]


def test_the_reference_transpose_has_no_finding_and_its_resources():
    doc = judge("shared-tiling.transpose", (TRANSPOSE / "reference.cu").read_text())
    assert doc["verdict"] == "accepted"
    prof = doc["profile"]
    assert prof["source"] == "emulator" and prof["gpu"] == "H100" and prof["findings"] == []
    (k,) = prof["kernels"]
    assert k["name"] == "transpose"
    assert k["metrics"]["shared_wavefronts_per_request"] == k["metrics"]["shared_ideal_wavefronts_per_request"]
    assert k["resources"]["registers_per_thread"] > 0 and k["resources"]["static_shared_bytes"] >= 32 * 33 * 4
    assert 0 < k["occupancy"]["theoretical_pct"] <= 100


def test_a_fixed_grid_is_sampled_at_the_benchmark_size():
    # full_sum launches 1024 x 256 threads whatever N is; at 2^24 floats (64 MiB, the largest under
    # the cap) a sample of its blocks is counted and scaled to the grid (#26)
    doc = judge("reduction.full_sum", (LESSONS / "02-reduction" / "exercises" / "full_sum" / "reference.cu").read_text())
    assert doc["verdict"] == "accepted"
    prof = doc["profile"]
    assert prof is not None and prof["case"] == "n=16777216" and "caveats" not in prof
    (k,) = prof["kernels"]
    assert k["grid"] == [1024, 1, 1] and k["block"] == [256, 1, 1]
    ran = prof["estimate"]["sample"]["blocks"][0]
    assert 2 <= ran <= 256 and prof["estimate"]["sample"]["grid_blocks"] == [1024]
    # one atomicAdd per block, all on out[0]: the sample's, scaled to the grid's 1024 on one address;
    # float4 loads, 16 sectors per request as on a GPU (a ratio: not scaled)
    assert abs(k["metrics"]["atomics"] - 1024) <= 1024 / ran and k["metrics"]["atomics_per_address_max"] == k["metrics"]["atomics"]
    assert k["metrics"]["global_load_sectors_per_request"] == 16.0
    assert "estimate" in prof


def test_inline_ptx_counts_are_said_to_be_of_the_code_beside_it():
    # the PTX (a lane id) sits in a branch the emulator's preprocessor drops; a GPU runs it
    ptx = REPO_ROOT / "tests" / "realworld" / "kernels" / "block_sum_ptx_dead_branch.cu"
    doc = judge("reduction.block_sum", ptx.read_text())
    assert doc["verdict"] == "accepted"
    assert doc["profile"]["caveats"] == ["inline_ptx_fallback"]
    # without the PTX, nothing to say
    plain = judge("reduction.block_sum", (LESSONS / "02-reduction" / "exercises" / "block_sum" / "reference.cu").read_text())
    assert "caveats" not in plain["profile"]


def test_a_comment_naming_asm_is_no_inline_ptx():
    from kernels.profile.model import has_inline_asm

    assert not has_inline_asm('// asm("mov.u32 %0, %%laneid;")\n/* __asm__ volatile */ int x;')
    assert has_inline_asm('#if 0\nasm volatile("exit;");\n#endif')


def test_a_transpose_without_shared_memory_is_told_about_coalescing():
    doc = judge("shared-tiling.transpose", (TRANSPOSE / "solutions" / "correct" / "direct_no_shared.cu").read_text())
    assert doc["verdict"] == "accepted"
    (finding,) = doc["profile"]["findings"]
    assert finding["code"] == "profile_uncoalesced" and finding["params"]["access"] == "store"
    assert finding["lesson"] == "/lessons/coalescing"
    assert finding["params"]["sectors"] >= 4 * finding["params"]["ideal"]


def test_an_unpadded_tile_is_told_about_bank_conflicts():
    source = (TRANSPOSE / "baselines" / "unpadded.cu").read_text().replace("transpose_unpadded", "transpose")
    doc = judge("shared-tiling.transpose", source)
    assert doc["verdict"] == "accepted"
    assert codes(doc) == ["profile_bank_conflicts"]
    finding = doc["profile"]["findings"][0]
    assert finding["params"]["ways"] == 32 and finding["lesson"] == "/lessons/shared-tiling"


def test_one_global_atomic_per_byte_is_told_about_contention():
    # the lesson's naive baseline, with the grid-stride loop the exercise's launch needs
    source = """extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int N) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i]], 1u);
}
"""
    doc = judge("histogram.bytes", source)
    assert doc["verdict"] == "accepted"
    assert "profile_atomic_contention" in codes(doc)
    k = doc["profile"]["kernels"][0]["metrics"]
    assert k["atomics"] > 0 and k["atomics_per_address_max"] >= k["atomics_per_address_mean"] >= 32


def test_no_profile_for_a_failed_attempt():
    source = (TRANSPOSE / "solutions" / "wrong" / "swapped_tile_indices.cu").read_text()
    doc = judge("shared-tiling.transpose", source)
    assert doc["verdict"] != "accepted" and "profile" not in doc


def test_staff_can_switch_profiling_off(monkeypatch):
    source = (TRANSPOSE / "reference.cu").read_text()
    off = dataclasses.replace(find_exercise("shared-tiling.transpose"), profile_enabled=False)
    assert "profile" not in judge("", source, off)
    monkeypatch.setenv("KDOJO_PROFILE", "0")
    assert "profile" not in judge("shared-tiling.transpose", source)


def test_the_staff_switch_reaches_the_job_process(monkeypatch):
    """The judge runs in a job process with a filtered environment
    (kernels/sandbox.py PASS_THROUGH): KDOJO_PROFILE must get through it."""
    from kernels.judge import Judge

    source = (TRANSPOSE / "reference.cu").read_text()
    monkeypatch.setenv("KDOJO_PROFILE", "0")
    with Judge(backend="emu", keep_spare=False) as judge:
        off = judge.run(source, "shared-tiling.transpose", bench=False)
    assert off["verdict"] == "accepted" and "profile" not in off
    monkeypatch.delenv("KDOJO_PROFILE")
    with Judge(backend="emu", keep_spare=False) as judge:
        on = judge.run(source, "shared-tiling.transpose", bench=False)
    assert on["verdict"] == "accepted" and on["profile"]["source"] == "emulator"


def test_kdojo_judge_prints_a_compact_profile():
    from kernels.cli import render

    doc = judge("shared-tiling.transpose", (TRANSPOSE / "solutions" / "correct" / "direct_no_shared.cu").read_text())
    text = render(doc)
    assert "profile (emulator" in text and "registers/thread" in text and "→ /lessons/coalescing" in text


@pytest.mark.parametrize("table, expected", [("[profile]\nenabled = false\n", False),
                                              ("[profile]\nenabled = true\n", True), ("", True)])
def test_the_spec_field_profile_enabled(tmp_path, table, expected):
    from kernels.spec_parse import load_spec

    target = tmp_path / "transpose"
    shutil.copytree(TRANSPOSE, target)
    spec = target / "exercise.toml"
    spec.write_text(spec.read_text() + "\n" + table)
    assert load_spec(spec).profile_enabled is expected


def test_a_bad_profile_table_names_its_field(tmp_path):
    from kernels.spec import SpecError
    from kernels.spec_parse import load_spec

    target = tmp_path / "transpose"
    shutil.copytree(TRANSPOSE, target)
    spec = target / "exercise.toml"
    spec.write_text(spec.read_text() + '\n[profile]\nenabled = "no"\n')
    with pytest.raises(SpecError, match="profile.enabled"):
        load_spec(spec)


def test_the_status_says_who_profiles(monkeypatch):
    from kernels.profile.run import status

    assert status("emu") == {"enabled": True, "source": "emulator", "ncu": False}
    monkeypatch.setattr("kernels.profile.gpu.ncu_path", lambda: None)
    assert status("cuda") == {"enabled": False, "source": None, "ncu": False}
    monkeypatch.setenv("KDOJO_PROFILE", "off")
    assert status("emu")["enabled"] is False


def test_a_failing_profiler_never_costs_the_verdict(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("a bug in the profiler")

    monkeypatch.setattr("kernels.profile.run.profile_attempt", broken)
    doc = judge("shared-tiling.transpose", (TRANSPOSE / "reference.cu").read_text())
    assert doc["verdict"] == "accepted" and "profile" not in doc


def test_the_profiling_stage_reaches_the_page():
    from app.services.events import judge_event_to_stage

    assert judge_event_to_stage({"stage": "profiling"}) == ("profiling", {})
    assert judge_event_to_stage({"stage": "_profile_start"}) is None  # private: the supervisor's deadline


def test_a_tree_reduction_is_not_told_it_diverges():
    # block_sum's reference: its lane-0 steps are short branches a GPU predicates, so over every
    # executed basic block its warps run (nearly) full, as ncu measured (98.6%); over its memory
    # instructions alone it was 47%. Its global loads use all 32 lanes.
    doc = judge("reduction.block_sum", (LESSONS / "02-reduction" / "exercises" / "block_sum" / "reference.cu").read_text())
    m = doc["profile"]["kernels"][0]["metrics"]
    assert m["warp_execution_efficiency_pct"] >= 0.9 * 98.6 and m["global_lanes_active_pct"] >= 50
    assert "profile_divergence" not in codes(doc)


def test_a_volatile_warp_reduction_is_profiled_like_it_is_judged():
    # the classic last-warp reduction through a volatile pointer: accepted (warp lockstep, #12) and
    # profiled, its profiler program built with the check program's volatile lockstep too (#16)
    exercise = find_exercise("reduction.block_sum")
    source = (REPO_ROOT / "tests/realworld/kernels/block_sum_volatile_last_warp.cu").read_text()
    doc = run_pipeline(exercise, source, EmuTarget(), bench=False, seed=1, emit=lambda event: None)
    assert doc["verdict"] == "accepted", doc["message"]
    assert doc["profile"]["kernels"][0]["metrics"]["warp_execution_efficiency_pct"] > 0
