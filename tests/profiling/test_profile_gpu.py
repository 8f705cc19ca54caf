"""The Nsight Compute path of the profiler (#16). The CSV parsing runs anywhere;
the `gpu`-marked tests need a GPU with `ncu` (skipped without one)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kernels.profile import doc as prof
from kernels import contract as result
from kernels.exercises import REPO_ROOT, find_exercise
from kernels.profile.gpu import NCU_METRICS, metrics_from_ncu, ncu_command, ncu_path, parse_csv

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
          '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def _row(launch: int, metric: str, value: str, unit: str = "") -> str:
    return (f'"{launch}","4242","python3","127.0.0.1","transpose","1","7","(32, 8, 1)","(17, 9, 1)","0","9.0",'
            f'"Command line profiler metrics","{metric}","{unit}","{value}"')


def test_ncu_csv_becomes_metrics_per_launch():
    text = "\n".join(["==PROF== Connected to process 4242", HEADER,
                      _row(0, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "1,024", "sector"),
                      _row(0, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "256", "request"),
                      _row(0, "smsp__thread_inst_executed_per_inst_executed.ratio", "16"),
                      _row(0, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "n/a"),
                      _row(1, "launch__registers_per_thread", "24", "register/thread"),
                      "==PROF== Disconnected from process 4242"])
    first, second = parse_csv(text)
    assert (first["kernel"], first["block"], first["grid"]) == ("transpose", "(32, 8, 1)", "(17, 9, 1)")
    m = metrics_from_ncu(first["metrics"])
    assert m["global_load_sectors_per_request"] == 4.0 and m["warp_execution_efficiency_pct"] == 50.0
    assert m["tensor_pipe_pct"] is None and m["atomics_per_address_mean"] is None
    assert second["metrics"] == {"launch__registers_per_thread": 24.0}


def test_a_real_ncu_csv_from_an_h100_parses():
    # tests/profiling/data/ncu_block_sum.csv: ncu 2025.3.1 on an H100, block_sum's reference at n=1048576
    text = (Path(__file__).parent / "data" / "ncu_block_sum.csv").read_text()
    (launch,) = parse_csv(text)
    assert (launch["kernel"], launch["block"], launch["grid"]) == ("block_sum", "(256, 1, 1)", "(4096, 1, 1)")
    assert launch["metrics"]["smsp__inst_executed_op_shared_st.sum"] == 32768.0
    m = metrics_from_ncu(launch["metrics"])
    assert m["global_load_sectors_per_request"] == 4.0 and m["warp_execution_efficiency_pct"] == 98.6
    assert m["dram_throughput_pct"] == 12.66 and m["achieved_occupancy_pct"] == 59.5


def test_ldmatrix_requests_count_beside_their_wavefronts():
    # An H100 (ncu, 2026-11-27): one warp, 32 ldmatrix.x4 of a 16 x 16 half tile padded to 24
    # elements a row (4 wavefronts each) and one plain LDS of a wavefront; 16 stores, 44 wavefronts.
    # op_shared_ld counts only the LDS: without ldsm's instructions the ratio was 129 / 17.
    m = metrics_from_ncu({"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 129.0,
                          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 44.0,
                          "smsp__sass_inst_executed_op_shared_ld.sum": 1.0,
                          "smsp__sass_inst_executed_op_shared_st.sum": 16.0,
                          "smsp__sass_inst_executed_op_ldsm.sum": 32.0})
    assert m["shared_wavefronts_per_request"] == round(173 / 49, 2)


def test_the_ncu_command_is_bounded_to_the_exercise_kernels():
    cmd = ncu_command("/x/ncu", ["block_sum"], ["python3", "-m", "kernels.profile.gpu", "child", "{}"])
    assert cmd[cmd.index("-k") + 1] == "regex:^(block_sum)$"
    assert cmd[cmd.index("--metrics") + 1] == ",".join(NCU_METRICS)
    assert "--clock-control" in cmd and cmd[cmd.index("--launch-count") + 1] == "16"


@pytest.mark.gpu
def test_ncu_profiles_the_block_sum_reference_within_its_budget():
    from kernels.compile import compile_submission
    from kernels.profile.gpu import profile_on_gpu
    from kernels.profile.run import resources

    if ncu_path() is None:
        pytest.skip("no ncu on this GPU machine")
    exercise = find_exercise("reduction.block_sum")
    source = exercise.reference_cu_path.read_text()
    constants = compile_submission(source, exercise, None).constants
    started = time.perf_counter()
    profile = profile_on_gpu(exercise, source, len(exercise.tests) - 1, 1, REPO_ROOT / "lessons",
                             resources(source, exercise, constants), budget_s=60)
    elapsed = time.perf_counter() - started
    assert profile is not None and prof.validate(profile) == []
    assert profile["source"] == "ncu" and profile["kernels"]
    k = profile["kernels"][0]
    assert k["name"] == "block_sum" and k["resources"]["registers_per_thread"] > 0
    m = k["metrics"]
    assert m["global_load_sectors_per_request"] is not None and m["global_load_sectors_per_request"] >= 4
    assert 0 < m["warp_execution_efficiency_pct"] <= 100 and m["dram_throughput_pct"] is not None
    assert 0 < m["achieved_occupancy_pct"] <= 100
    print(f"ncu profile of block_sum: {elapsed:.2f} s")


@pytest.mark.gpu
def test_an_accepted_gpu_judge_run_carries_an_ncu_profile():
    from kernels.targets.cuda import CudaTarget
    from kernels.pipeline import run_pipeline

    if ncu_path() is None:
        pytest.skip("no ncu on this GPU machine")
    exercise = find_exercise("reduction.block_sum")
    doc = run_pipeline(exercise, exercise.reference_cu_path.read_text(), CudaTarget(), bench=False, seed=1,
                       emit=lambda event: None)
    assert doc["verdict"] == "accepted" and result.validate(doc) == []
    assert doc.get("profile", {}).get("source") == "ncu"


@pytest.mark.gpu
def test_a_benchmarked_gpu_judge_run_carries_a_measured_roofline():
    """GEMM has a flop model and no byte model: the roofline's bytes are ncu's DRAM bytes (scaled to the
    benchmark case) and its attempt point is the benchmark's own median time at the largest case."""
    from kernels.targets.cuda import CudaTarget
    from kernels.pipeline import run_pipeline

    if ncu_path() is None:
        pytest.skip("no ncu on this GPU machine")
    exercise = find_exercise("gemm-epilogue.fp32")
    doc = run_pipeline(exercise, exercise.reference_cu_path.read_text(), CudaTarget(), bench=True, seed=1,
                       emit=lambda event: None)
    assert doc["verdict"] == "accepted" and result.validate(doc) == []
    roof = doc["profile"]["roofline"]
    attempt = roof["points"][0]
    assert attempt["who"] == "attempt" and attempt["kind"] == "measured"
    from kernels.compile import compile_submission
    from kernels.profile.model import largest_case

    constants = compile_submission(exercise.reference_cu_path.read_text(), exercise, None).constants
    index = exercise.benchmark.cases.index(largest_case(exercise, constants))
    assert attempt["time_ms"] == doc["benchmark"]["sizes"][index]["ms"]
    assert roof["bytes_from"] == "ncu" and attempt["bytes"] > 3 * 4096 * 4096 * 4 * 0.5
    assert attempt["intensity"] > 1 and 0 < attempt["gflops"] < roof["compute_gflops"]
    print("GPU roofline:", roof)
