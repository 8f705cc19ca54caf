"""The judge on a real GPU: the block_sum corpus, faults, limits, events and the benchmark."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from kernels import contract as result

from .conftest import BLOCK_SUM, REPO

pytestmark = pytest.mark.gpu

CORRECT = sorted((BLOCK_SUM / "solutions" / "correct").glob("*.cu")) + [BLOCK_SUM / "reference.cu"]
WRONG = sorted((BLOCK_SUM / "solutions" / "wrong").glob("*.cu"))
HEADER = 'extern "C" __global__ void block_sum(const float* in, float* out, int N) {\n'


@pytest.fixture(scope="module")
def judge():
    from kernels.judge import Judge

    with Judge(REPO / "lessons", backend="cuda") as j:
        yield j


@pytest.fixture
def short_limits(scratch_exercise):
    spec = scratch_exercise / "exercise.toml"
    spec.write_text(spec.read_text().replace("run_s = 10", "run_s = 2"))
    return scratch_exercise.parents[2]


def test_corpus_has_the_promised_files():
    assert {p.name for p in CORRECT} >= {"warp_shuffle.cu", "shared_tree.cu", "reference.cu"}
    assert {p.name for p in WRONG} == {"missing_bounds_check.cu", "non_atomic_accumulation.cu",
                                       "first_block_only.cu", "writes_constant.cu", "off_by_one_tail.cu"}


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.name)
def test_correct_solutions_are_accepted(judge, path):
    doc = judge.run(path.read_text(), "reduction.block_sum", bench=False)
    assert result.validate(doc) == []
    assert doc["verdict"] == "accepted", doc["message"]
    assert doc["message"] == f"all {len(doc['tests'])} tests passed"
    assert doc["benchmark"] is None and doc["backend"] == "cuda"


@pytest.mark.parametrize("path", WRONG + [BLOCK_SUM / "starter.cu"], ids=lambda p: p.name)
def test_wrong_solutions_and_the_starter_are_not(judge, path):
    doc = judge.run(path.read_text(), "reduction.block_sum", bench=False)
    assert result.validate(doc) == []
    assert doc["verdict"] == "wrong_answer", doc["message"]
    failed = [t for t in doc["tests"] if t["status"] == "fail"]
    assert failed, doc["tests"]
    assert any(text in failed[0]["message"] for text in ("expected", "wrote outside"))


def test_writing_past_the_output_is_caught_by_the_guard(judge):
    source = (BLOCK_SUM / "reference.cu").read_text().replace("atomicAdd(out, v);",
                                                               "atomicAdd(out, v); out[1] = 0.0f;")
    doc = judge.run(source, "reduction.block_sum", bench=False)
    assert doc["verdict"] == "wrong_answer"
    assert "wrote outside buffer 'out': 1 element(s) past the end (first at index 1)" in doc["message"]


def test_modifying_the_input_is_caught(judge):
    source = (BLOCK_SUM / "reference.cu").read_text().replace(
        "float v = (i < N) ? in[i] : 0.0f;", "float v = (i < N) ? in[i] : 0.0f;\n"
        "    if (i < N) ((float*)in)[i] = 0.0f;")
    doc = judge.run(source, "reduction.block_sum", bench=False)
    assert doc["verdict"] == "wrong_answer"
    assert "input 'in' was modified" in doc["message"]


def test_illegal_address_is_a_runtime_error_and_the_next_job_is_fine(judge):
    source = HEADER + "    if (threadIdx.x == 0) ((float*)0x10)[blockIdx.x] = 1.0f;\n}\n"
    doc = judge.run(source, "reduction.block_sum", bench=False)
    assert doc["verdict"] == "runtime_error", doc["message"]
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in doc["message"] or "IllegalAddress" in doc["message"]
    assert len(doc["tests"]) == 1 and doc["tests"][0]["status"] == "error"
    after = judge.run((BLOCK_SUM / "reference.cu").read_text(), "reduction.block_sum", bench=False)
    assert after["verdict"] == "accepted"


def test_infinite_loop_is_killed_and_the_gpu_is_free(short_limits):
    from kernels.judge import Judge

    # spins on a volatile global read (a loop without side effects could be removed)
    source = HEADER + "    while (((volatile float*)out)[0] == 0.0f) { }\n}\n"
    with Judge(short_limits, backend="cuda") as j:
        started = time.monotonic()
        doc = j.run(source, "reduction.block_sum", bench=False)
        elapsed = time.monotonic() - started
        assert doc["verdict"] == "time_limit_exceeded", doc["message"]
        assert doc["tests"][-1]["status"] == "error"
        assert "did not finish within 2 s" in doc["tests"][-1]["message"]
        assert elapsed < 2 + 3 + 5
        assert result.validate(doc) == []
        after = j.run((BLOCK_SUM / "reference.cu").read_text(), "reduction.block_sum", bench=False)
        assert after["verdict"] == "accepted"


def test_printf_is_captured_per_test_and_capped(judge):
    source = (BLOCK_SUM / "reference.cu").read_text().replace(
        "atomicAdd(out, v);", 'atomicAdd(out, v);\n            printf("block %d\\n", blockIdx.x);')
    doc = judge.run(source, "reduction.block_sum", bench=False)
    assert doc["verdict"] == "accepted"
    assert doc["tests"][0]["output"] == "block 0\n"
    big = doc["tests"][-1]["output"]
    assert "block " in big and big.endswith("more characters not shown)")


def test_compile_error_and_rejection_through_the_gpu_judge(judge):
    doc = judge.run(HEADER + "    int x = \n}\n", "reduction.block_sum", bench=False)
    assert doc["verdict"] == "compile_error" and doc["tests"] == []
    assert doc["compile"]["diagnostics"][0]["line"] == 3
    doc = judge.run('#include "/etc/passwd"\n', "reduction.block_sum", bench=False)
    assert doc["verdict"] == "rejected" and "root:" not in json.dumps(doc)


def test_events_and_benchmark(judge):
    events = []
    doc = judge.run((BLOCK_SUM / "reference.cu").read_text(), "reduction.block_sum", bench=True,
                    on_event=events.append)
    assert doc["verdict"] == "accepted", doc["message"]
    stages = [e["stage"] for e in events]
    assert stages[0] == "compiling" and stages[-1] == "done"
    assert stages.count("testing") == len(doc["tests"])
    assert stages.count("benchmarking") == 3
    assert events[-1]["verdict"] == "accepted"
    assert result.validate(doc) == []
    bench = doc["benchmark"]
    sizes = bench["sizes"]
    assert [s["n"] for s in sizes] == [1048576, 16777216, 268435456]
    assert 500 < bench["peak_gbps"] < 10000
    for s in sizes:
        assert 0 < s["best_ms"] <= s["ms"] * 1.001
        assert 0 < s["pct_of_peak"] < 110
        assert s["baselines"]["framework"] > 0
        assert s["ms_err"] / s["ms"] < 0.05
    assert sizes[0]["baselines"]["naive"] > 10 * sizes[0]["ms"]
    assert sizes[2]["baselines"]["naive"] is None
    assert doc["device"]["name"]
    assert doc["timings"]["bench_s"] > 0


def test_baselines_are_timed_before_learner_code_once_and_shown_again(scratch_exercise):
    """The first benchmark of an exercise times its baselines before the tests, in a process
    no learner code has run in; the next jobs show those times and do not time them (#26)."""
    from kernels.judge import Judge

    source = (BLOCK_SUM / "reference.cu").read_text()
    with Judge(scratch_exercise.parents[2], backend="cuda", defer_profile=True) as judge:
        assert judge.wait_ready(120)
        first_events: list[dict] = []
        first = judge.run(source, "reduction.block_sum", bench=True, on_event=first_events.append)
        second = judge.run(source, "reduction.block_sum", bench=True)
        # a wrong kernel's tests fail: it gets its verdict and no benchmark
        wrong = judge.run(HEADER + "  if (threadIdx.x == 0 && blockIdx.x == 0) *out = 1.0f;\n}\n",
                          "reduction.block_sum", bench=True)
    assert first["verdict"] == second["verdict"] == "accepted"
    assert wrong["verdict"] == "wrong_answer" and wrong["benchmark"] is None
    assert result.validate(first) == [] and result.validate(second) == []
    assert not any(str(e.get("stage", "")).startswith("_") for e in first_events)  # private: not forwarded
    shown = [[s["baselines"] for s in doc["benchmark"]["sizes"]] for doc in (first, second)]
    assert shown[0] == shown[1]
    assert shown[0][0]["naive"] > 10 * first["benchmark"]["sizes"][0]["ms"]
    assert all(t["framework"] > 0 for t in shown[0])
    # the second's own kernel was timed afresh
    assert [s["reps"] for s in second["benchmark"]["sizes"]] and second["benchmark"]["geomean_ms"] > 0


def test_cli_json_on_the_gpu():
    proc = subprocess.run([sys.executable, "-m", "kernels", "judge", str(BLOCK_SUM / "reference.cu"),
                           "--exercise", "reduction.block_sum", "--backend", "cuda", "--json", "--no-bench"],
                          capture_output=True, text=True, cwd=REPO, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert result.validate(doc) == [] and doc["verdict"] == "accepted"


WMMA = REPO / "lessons" / "05-gemm-epilogue" / "exercises" / "wmma_fp16"


def test_dynamic_shared_memory_past_48_kb_is_opted_in_and_over_the_limit_is_named(judge):
    # one_warp_per_tile has ~2 KB of static shared memory and never touches the dynamic kind
    source = (WMMA / "solutions" / "correct" / "one_warp_per_tile.cu").read_text()
    roomy = source.replace("#define THREADS 32", "#define THREADS 32\n#define SMEM_BYTES 98304")
    doc = judge.run(roomy, "gemm-epilogue.wmma_fp16", bench=False)
    assert doc["verdict"] == "accepted", doc["message"]
    # 227 KB of dynamic on top of the static: more than an H100 gives a block
    greedy = source.replace("#define THREADS 32", "#define THREADS 32\n#define SMEM_BYTES 232448")
    doc = judge.run(greedy, "gemm-epilogue.wmma_fp16", bench=False)
    assert doc["verdict"] == "runtime_error", doc["message"]
    assert "232448 bytes of dynamic shared memory (SMEM_BYTES)" in doc["message"], doc["message"]
    assert "gives one block at most" in doc["message"], doc["message"]
    assert judge.run(roomy, "gemm-epilogue.wmma_fp16", bench=False)["verdict"] == "accepted"
