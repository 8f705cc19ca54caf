"""The ncu profile of a Triton attempt (#29).

Anywhere: ncu's CSV of a Triton kernel, the ncu command filtered on a build's cubin entry
points, the resources read from a stored compile result's ptxas report, the findings a
Triton attempt is not given, and the child started for a Triton compile result (with a
stand-in on $KDOJO_NCU, as test_profile_early_start.py). With the sandbox: a real Triton
compile carries ptxas's report. `gpu`-marked: real ncu, the real sandboxed Triton compile
and CuPy, on a GPU (run with `python3 -m pytest -m gpu tests/profiling/test_profile_triton.py`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from kernels import contract as result, languages
from kernels.compile import CompileResult
from kernels.exercises import REPO_ROOT, find_exercise
from kernels.plan import env_for
from kernels.profile import doc as prof
from kernels.profile import run as profile_run
from kernels.profile.findings import PER_THREAD_CODE, findings
from kernels.profile.gpu import _profile_doc, ncu_command, ncu_path, parse_csv
from kernels.triton.compile import TritonBinary, TritonBuild, TritonLaunchPlan
from tests.profiling.test_profile_early_start import stand_in_ncu
from tests.triton_lang.conftest import sandbox  # noqa: F401  the fixture: Triton's sandbox, or a skip

DATA = Path(__file__).parent / "data"
LESSONS = REPO_ROOT / "lessons"
SAXPY_DIR = LESSONS / "01-elementwise" / "exercises" / "saxpy"
SOFTMAX_DIR = LESSONS / "04-row-reductions" / "exercises" / "softmax"
# ptxas -v's report of the saxpy reference's cubin, as Triton 3.6's ptxas wrote it for sm_90a
PTXAS_SAXPY = (DATA / "triton_saxpy_ptxas.txt").read_text()


def saxpy_binary(key: str, block: int, ptxas_log: str) -> TritonBinary:
    return TritonBinary(key, "saxpy", "saxpy", ("*fp32", "*fp32", "fp32", "i32"), (("BLOCK", block),), 8, 3, 0, 6,
                        0, 1, 0, 1, b"\x7fELF", ptxas_log)


def saxpy_build(*binaries: TritonBinary, plans: tuple = ()) -> TritonBuild:
    return TritonBuild("3.6.0", "sm_90a", binaries, plans)


def case_plan(n: int, *steps: tuple[str, int]) -> tuple:
    return ((("N", n), ("a", 2.0)), tuple(TritonLaunchPlan(key, (grid, 1, 1)) for key, grid in steps))


def test_ncu_rows_of_a_triton_kernel_become_its_profile():
    # tests/profiling/data/ncu_triton_saxpy.csv: ncu on an H200 (2026-11-29), our child running
    # saxpy's reference.triton.py at N=1000003: 489 programs of 2048 elements, 8 warps each; the cubin's
    # entry point is the @triton.jit function's name
    (launch,) = parse_csv((DATA / "ncu_triton_saxpy.csv").read_text())
    assert launch["kernel"] == "saxpy" and launch["block"] == "(256, 1, 1)" and launch["grid"] == "(489, 1, 1)"
    exercise = find_exercise("elementwise.saxpy")
    resources = {"saxpy": prof.parse_ptxas(PTXAS_SAXPY)["saxpy"]}
    doc = _profile_doc(exercise, len(exercise.tests) - 1, [launch], resources, None, {"saxpy": "saxpy"},
                       per_thread_code=False)
    assert prof.validate(doc) == [] and doc["source"] == "ncu"
    (k,) = doc["kernels"]
    assert k["name"] == "saxpy" and k["resources"] == resources["saxpy"] and k["block"] == [256, 1, 1]
    assert k["metrics"]["global_load_sectors_per_request"] is not None and k["occupancy"]["theoretical_pct"] > 0


def test_the_profile_names_a_kernel_as_the_learner_wrote_it():
    rows = parse_csv((DATA / "ncu_triton_saxpy.csv").read_text())
    doc = _profile_doc(find_exercise("elementwise.saxpy"), 0, rows, {}, None, {"saxpy": "my_saxpy"})
    assert [k["name"] for k in doc["kernels"]] == ["my_saxpy"] and doc["kernels"][0]["resources"] is None


def test_ncu_is_limited_to_the_cubins_entry_points_and_the_child_alone():
    build = saxpy_build(saxpy_binary("b0", 256, ""), saxpy_binary("b1", 2048, ""))
    assert build.entry_kernels() == {"saxpy": "saxpy"}
    cmd = ncu_command("/x/ncu", sorted(build.entry_kernels()), ["python3", "-m", "kernels.profile.gpu", "child"])
    assert cmd[cmd.index("-k") + 1] == "regex:^(saxpy)$"
    # not the Triton compile's sandbox the child starts, nor NVRTC's helper
    assert cmd[cmd.index("--target-processes") + 1] == "application-only"


def test_resources_are_the_ptxas_report_of_the_binary_the_case_runs():
    small = PTXAS_SAXPY.replace("Used 22 registers", "Used 16 registers")
    build = saxpy_build(saxpy_binary("b0", 256, small), saxpy_binary("b1", 2048, PTXAS_SAXPY),
                        plans=(case_plan(1, ("b0", 1)), case_plan(1 << 20, ("b1", 512))))
    assert profile_run.triton_resources(build, {"N": 1 << 20, "a": 2.0})["saxpy"]["registers_per_thread"] == 22
    assert profile_run.triton_resources(build, {"N": 1, "a": 2.0})["saxpy"]["registers_per_thread"] == 16
    assert profile_run.triton_resources(build, {"N": 1, "a": 2.0}) == {"saxpy": prof.parse_ptxas(small)["saxpy"]}


def test_resources_are_left_out_where_they_are_not_sure():
    # one kernel compiled twice and run twice in one case: ncu's rows do not say which binary ran
    twice = saxpy_build(saxpy_binary("b0", 256, PTXAS_SAXPY), saxpy_binary("b1", 2048, PTXAS_SAXPY),
                        plans=(case_plan(8, ("b0", 1), ("b1", 1)),))
    assert profile_run.triton_resources(twice, {"N": 8, "a": 2.0}) == {}
    # no report (a cached compile), or a forged one out of range
    for log in ("", PTXAS_SAXPY.replace("Used 22 registers", "Used 4096 registers")):
        build = saxpy_build(saxpy_binary("b0", 256, log), plans=(case_plan(8, ("b0", 1)),))
        assert profile_run.triton_resources(build, {"N": 8, "a": 2.0}) == {}


def _divergent_starved_kernel() -> dict:
    metrics = {key: None for key in prof.METRIC_KEYS} | {"warp_execution_efficiency_pct": 20.0}
    res = {"registers_per_thread": 255, "static_shared_bytes": 0, "stack_frame_bytes": 0, "spill_bytes": 0}
    return prof.kernel_entry("k", (1024, 1, 1), (256, 1, 1), 0, res, metrics)


def test_a_triton_attempt_is_not_told_about_code_it_does_not_write():
    kernels = [_divergent_starved_kernel()]
    cuda = {f["code"] for f in findings(kernels)}
    triton = {f["code"] for f in findings(kernels, per_thread_code=False)}
    assert cuda == {"profile_divergence", "profile_low_occupancy"}
    assert triton == {"profile_low_occupancy"} and not triton & set(PER_THREAD_CODE)


CSV_NCU = f"""#!{sys.executable}
import json, pathlib, sys
job = json.loads(sys.argv[-1])
folder = pathlib.Path(job["source"]).parent
(folder / "args.json").write_text(json.dumps(sys.argv[1:]))
(folder / "ready").touch()
while not (folder / "release").exists():
    pass
sys.stdout.write(pathlib.Path({str(DATA / "ncu_triton_saxpy.csv")!r}).read_text())
"""


def test_the_child_of_a_triton_attempt_compiles_triton_and_ncu_profiles_its_entry_points(tmp_path, monkeypatch):
    stand_in_ncu(tmp_path, monkeypatch, CSV_NCU)  # ncu is outside our code: a stand-in that keeps its arguments
    exercise = find_exercise("elementwise.saxpy")
    last = exercise.tests[-1]
    build = saxpy_build(saxpy_binary("b0", 2048, PTXAS_SAXPY), plans=tuple(
        (tuple(sorted(c.values)), (TritonLaunchPlan("b0", (-(-dict(c.values)["N"] // 2048), 1, 1)),))
        for c in exercise.tests))
    compiled = CompileResult("ok", 0.0, "", [], language="triton", artifact=build)
    source = (SAXPY_DIR / "reference.triton.py").read_text()
    pending = profile_run.start_gpu_profile(exercise, source, SimpleNamespace(arch="sm_90a"), {}, 1, compiled)
    folder = Path(pending._tmp.name)
    job = json.loads(pending.proc.args[-1])
    assert job["language"] == "triton" and job["arch"] == "sm_90a"
    assert Path(job["source"]).name == "submission.triton.py" and Path(job["source"]).read_text() == source
    assert pending.case_index == exercise.tests.index(last)
    res = profile_run.triton_resources(build, env_for(last, {}))
    args = None
    try:
        while not (folder / "ready").exists():
            pass
        args = json.loads((folder / "args.json").read_text())
        doc = pending.finish(res, budget_s=10)
    finally:
        pending.cancel()
    assert args[args.index("-k") + 1] == "regex:^(saxpy)$"
    assert doc is not None and prof.validate(doc) == [] and doc["kernels"][0]["resources"]["registers_per_thread"] == 22


def test_a_cuda_compile_result_keeps_the_cuda_child(tmp_path, monkeypatch):
    stand_in_ncu(tmp_path, monkeypatch, CSV_NCU)
    exercise = find_exercise("elementwise.saxpy")
    compiled = CompileResult("ok", 0.0, "", [])
    pending = profile_run.start_gpu_profile(exercise, "// source\n", SimpleNamespace(arch="sm_90a"), {}, 1, compiled)
    try:
        job = json.loads(pending.proc.args[-1])
        assert job["language"] == "cuda" and Path(job["source"]).name == "submission.cu"
        assert pending.names == {k.name: k.name for k in exercise.kernels} and pending.per_thread_code
    finally:
        pending.cancel()


@pytest.mark.usefixtures("sandbox")
def test_a_triton_compile_reports_what_ptxas_said_of_each_cubin():
    exercise = find_exercise("elementwise.saxpy")
    compiled = languages.get("triton").compile((SAXPY_DIR / "reference.triton.py").read_text(), exercise,
                                               "cuda", "sm_90a")
    assert compiled.ok, compiled.log
    for binary in compiled.artifact.binaries:
        found = prof.parse_ptxas(binary.ptxas_log)
        assert set(found) == {binary.name} == {"saxpy"}
        assert 0 < found["saxpy"]["registers_per_thread"] <= profile_run.MAX_REGISTERS
        regs = _cuobjdump_registers(binary.cubin)
        if regs is not None:  # Triton's own cuobjdump reads the cubin's register count
            assert found["saxpy"]["registers_per_thread"] == regs
    on_cpu = languages.get("triton").compile((SAXPY_DIR / "reference.triton.py").read_text(), exercise, "emu", None)
    assert all(b.ptxas_log == "" for b in on_cpu.artifact.binaries)


def _cuobjdump_registers(cubin: bytes) -> int | None:
    """REG of the cubin's one function by the cuobjdump that ships with Triton, or None."""
    import importlib.util
    import re
    import tempfile

    spec = importlib.util.find_spec("triton")
    tool = Path(spec.origin).parent / "backends" / "nvidia" / "bin" / "cuobjdump" if spec and spec.origin else None
    if tool is None or not tool.exists():
        return None
    with tempfile.NamedTemporaryFile(suffix=".cubin") as handle:
        handle.write(cubin)
        handle.flush()
        out = subprocess.run([str(tool), "--dump-resource-usage", handle.name], capture_output=True, text=True,
                             timeout=60)
    match = re.search(r"REG:(\d+)", out.stdout)
    return int(match[1]) if match else None


# -- on a GPU ---------------------------------------------------------------------------

def _gpu_attempt(exercise_id: str, source_path: Path):
    from kernels.targets.cuda import CudaTarget

    if ncu_path() is None:
        pytest.skip("no ncu on this GPU machine")
    exercise = find_exercise(exercise_id)
    source = source_path.read_text()
    target = CudaTarget()
    target.warm()
    compiled = languages.get("triton").compile(source, exercise, target.name, target.arch)
    assert compiled.ok, compiled.log
    return exercise, source, target, compiled, target.build(exercise, source, compiled)


@pytest.mark.gpu
@pytest.mark.usefixtures("sandbox")
@pytest.mark.parametrize("early", [True, False], ids=["started-early", "deferred"])
@pytest.mark.parametrize("exercise_id, folder, kernel", [("elementwise.saxpy", SAXPY_DIR, "saxpy"),
                                                         ("row-reductions.softmax", SOFTMAX_DIR, "softmax")])
def test_a_triton_reference_gets_an_ncu_profile_of_its_kernel(exercise_id, folder, kernel, early):
    exercise, source, target, compiled, program = _gpu_attempt(exercise_id, folder / "reference.triton.py")
    pending = profile_run.start_gpu_profile(exercise, source, target, compiled.constants, 1, compiled) \
        if early else None
    doc = profile_run.profile_attempt(exercise, source, target, program, compiled.constants, 1,
                                      pending=pending, compiled=compiled)
    assert doc is not None and prof.validate(doc) == [], doc
    assert doc["source"] == "ncu" and {k["name"] for k in doc["kernels"]} == {kernel}
    for k in doc["kernels"]:
        assert k["resources"] is not None and k["resources"]["registers_per_thread"] > 0
        assert k["block"][0] in {32 * b.num_warps for b in compiled.artifact.binaries}
        assert k["metrics"]["dram_throughput_pct"] is not None and 0 < k["metrics"]["achieved_occupancy_pct"] <= 100
    assert not {f["code"] for f in doc["findings"]} & set(PER_THREAD_CODE)
    print(f"ncu profile of the Triton {exercise_id}: {json.dumps(doc['kernels'][0]['resources'])}")


@pytest.mark.gpu
@pytest.mark.usefixtures("sandbox")
def test_a_wrong_triton_kernel_gets_no_profile(tmp_path):
    # wrong in every case, the profiled one too: the child's checked run fails, so ncu's rows are not used
    wrong = tmp_path / "subtracts_y.triton.py"
    wrong.write_text((SAXPY_DIR / "reference.triton.py").read_text().replace("a * x + y", "a * x - y"))
    exercise, source, target, compiled, program = _gpu_attempt("elementwise.saxpy", wrong)
    assert profile_run.profile_attempt(exercise, source, target, program, compiled.constants, 1,
                                       compiled=compiled) is None


@pytest.mark.gpu
@pytest.mark.usefixtures("sandbox")
def test_an_accepted_triton_judge_run_carries_an_ncu_profile():
    from kernels.pipeline import run_pipeline
    from kernels.targets.cuda import CudaTarget

    if ncu_path() is None:
        pytest.skip("no ncu on this GPU machine")
    exercise = find_exercise("elementwise.saxpy")
    doc = run_pipeline(exercise, (SAXPY_DIR / "reference.triton.py").read_text(), CudaTarget(), bench=False,
                       seed=1, emit=lambda event: None, language="triton")
    assert doc["verdict"] == "accepted" and result.validate(doc) == []
    assert doc["profile"]["source"] == "ncu" and doc["profile"]["kernels"][0]["name"] == "saxpy"
