"""The supervisor and its job processes, end to end on the CPU (emulator backend).

These run real `python -m kernels.worker` processes; they skip where the
emulator is not installed. The GPU versions are in test_gpu_judge.py.
"""

from __future__ import annotations

import logging
import re
import time

import pytest

from kernels import contract as result
from kernels.targets import emu_available

from .conftest import BLOCK_SUM

pytestmark = pytest.mark.skipif(not emu_available()[0], reason="emulator backend not available")


def test_spare_warms_and_each_run_gets_a_fresh_process(scratch_exercise):
    from kernels.judge import Judge

    lessons = scratch_exercise.parents[2]
    with Judge(lessons, backend="emu") as judge:
        assert judge.wait_ready(120)
        first_spare = judge.spares[0]
        events: list[dict] = []
        spares_while_judging: list[object] = []

        def on_event(event: dict) -> None:
            events.append(event)
            spares_while_judging.append(judge.spares)

        doc = judge.run((BLOCK_SUM / "reference.cu").read_text(), "reduction.block_sum", bench=True,
                        on_event=on_event)
        # an emulator job keeps every core busy: its spare starts once it has ended
        assert spares_while_judging and all(s == [] for s in spares_while_judging[:-1])
        assert len(judge.spares) == 1 and judge.spares[0] is not first_spare
        # the job's process was killed; it is reaped on a thread, so give it a moment to go
        assert first_spare.proc.wait(10) is not None
        assert doc["verdict"] == "accepted", doc["message"]
        assert result.validate(doc) == []
        assert doc["benchmark"] is None and "timings_note" in doc
        stages = [e["stage"] for e in events]
        assert stages[0] == "compiling" and stages[-1] == "done"
        assert stages.count("testing") == len(doc["tests"]) == 13
        wrong = judge.run((BLOCK_SUM / "solutions" / "wrong" / "first_block_only.cu").read_text(),
                          "reduction.block_sum", bench=False)
        assert wrong["verdict"] == "wrong_answer"
        assert wrong["message"].startswith(f"{sum(t['status'] != 'pass' for t in wrong['tests'])} of 13")


def test_our_own_failure_is_internal_error_with_an_operator_log_line(scratch_exercise, caplog):
    from kernels.judge import INTERNAL_MESSAGE, Judge

    reference = scratch_exercise / "reference.py"
    reference.write_text(reference.read_text().replace(
        "def generate(case, rng):", "def generate(case, rng):\n    raise RuntimeError('broken exercise')"))
    with Judge(scratch_exercise.parents[2], backend="emu", keep_spare=False) as judge, \
            caplog.at_level(logging.ERROR, logger="kernels.judge"):
        doc = judge.run((BLOCK_SUM / "reference.cu").read_text(), "reduction.block_sum", bench=False)
    assert doc["verdict"] == "internal_error"
    assert doc["message"] == INTERNAL_MESSAGE
    assert doc["compile"]["ok"] is True  # what the job reported before failing is kept
    assert result.validate(doc) == []
    assert any("broken exercise" in r.getMessage() for r in caplog.records)


def test_unknown_exercise_raises(scratch_exercise):
    from kernels.judge import Judge, UnknownExercise

    with Judge(scratch_exercise.parents[2], backend="emu", keep_spare=False) as judge:
        with pytest.raises(UnknownExercise):
            judge.run("", "no.such", bench=False)


def _break_generate(folder, body: str, run_s: float | None = None) -> None:
    reference = folder / "reference.py"
    reference.write_text(reference.read_text().replace(
        "def generate(case, rng):", f"def generate(case, rng):\n    if case['N'] == 3:\n        {body}"))
    if run_s is not None:
        spec = folder / "exercise.toml"
        spec.write_text(spec.read_text().replace("run_s = 10", f"run_s = {run_s}"))


def test_a_case_that_hangs_is_killed_at_its_deadline(scratch_exercise):
    import time

    from kernels.judge import Judge

    _break_generate(scratch_exercise, "import time; time.sleep(3600)", run_s=1)
    with Judge(scratch_exercise.parents[2], backend="emu") as judge:
        assert judge.wait_ready(120)
        job = judge.spares[0]
        started = time.monotonic()
        doc = judge.run((BLOCK_SUM / "reference.cu").read_text(), "reduction.block_sum", bench=False)
        elapsed = time.monotonic() - started
        assert doc["verdict"] == "time_limit_exceeded"
        assert [t["status"] for t in doc["tests"]] == ["pass", "pass", "error"]
        # the real elapsed time: run_s plus the supervisor's slack for process overhead
        message = doc["tests"][2]["message"]
        assert re.fullmatch(r"time limit exceeded: did not finish within 1 s \(stopped after (\d+\.\d) s\)",
                            message), message
        assert 4.0 <= float(re.search(r"after (\S+) s", message)[1]) < 10
        assert doc["message"] == f"n=3: {message}"
        assert elapsed < 60 and job.proc.returncode is not None
        assert result.validate(doc) == []


def test_a_job_process_that_dies_is_judged_again_then_internal_error(scratch_exercise, caplog):
    # the job process is ours: its death is never the learner's fault (#11)
    from kernels.judge import Judge

    _break_generate(scratch_exercise, "import os; os._exit(3)")
    with Judge(scratch_exercise.parents[2], backend="emu", keep_spare=False) as judge, \
            caplog.at_level(logging.ERROR, logger="kernels.judge"):
        doc = judge.run((BLOCK_SUM / "reference.cu").read_text(), "reduction.block_sum", bench=False)
    assert doc["verdict"] == "internal_error"
    assert doc["message"].startswith("the judge lost its job process 2 times (last: exit status 3)")
    assert doc["message_code"] == "internal"
    lost = [r.getMessage() for r in caplog.records if "job process lost" in r.getMessage()]
    assert len(lost) == 2 and all("exit status 3: in testing" in line for line in lost)
    assert result.validate(doc) == []


def test_the_first_failing_test_decides_the_verdict(scratch_exercise):
    # wrong for n = 1 .. 4, and a null-pointer write from n = 1000 on: the learner
    # sees the wrong answer at n=1 (the thing to fix first), not the later crash
    from kernels.judge import Judge

    source = """
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (N >= 1000) { float* nowhere = 0; nowhere[threadIdx.x] = 1.0f; return; }
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(out, in[0] + 1.0f);
}
"""
    with Judge(scratch_exercise.parents[2], backend="emu", keep_spare=False) as judge:
        doc = judge.run(source, "reduction.block_sum", bench=False)
    assert doc["verdict"] == "wrong_answer", doc["message"]
    assert doc["message"].startswith("9 of 13 tests failed; first: n=1: out[0]: expected")
    assert doc["tests"][0]["status"] == "fail"
    assert any(t["status"] == "error" for t in doc["tests"]), "the crash is still reported on its own test"
    assert result.validate(doc) == []


def test_a_slow_event_callback_is_not_counted_as_the_kernels_time(scratch_exercise):
    """The caller's `on_event` blocking past the case's time limit (a busy database
    storing progress, issue #25) leaves a correct kernel accepted."""
    from kernels.judge import SLACK_S, Judge

    lessons = scratch_exercise.parents[2]
    spec = scratch_exercise / "exercise.toml"  # a 3 s case limit: the same deadline, sooner
    spec.write_text(spec.read_text().replace("run_s = 10", "run_s = 3"))
    with Judge(lessons, backend="emu", keep_spare=False) as judge:
        assert judge.exercise("reduction.block_sum").limits.run_s == 3
        stall_s = judge.exercise("reduction.block_sum").limits.run_s + SLACK_S + 2
        stalled: list[float] = []

        def on_event(event: dict) -> None:
            if event.get("stage") == "test_start" and not stalled:
                stalled.append(stall_s)
                time.sleep(stall_s)

        doc = judge.run((BLOCK_SUM / "reference.cu").read_text(), "reduction.block_sum", bench=False,
                        on_event=on_event)
    assert stalled and doc["verdict"] == "accepted", doc["message"]
