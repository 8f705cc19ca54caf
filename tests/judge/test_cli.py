"""`kdojo judge` / `python -m kernels`: exit codes and one-line errors, run as real processes."""

import os
import subprocess
import sys

import pytest

from kernels.targets import gpu_visible
from kernels.cli import render
from kernels import contract as result

from .conftest import BLOCK_SUM, REPO


def _run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "kernels", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})


def _one_line_error(proc, code, text):
    assert proc.returncode == code, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert text in proc.stderr


def test_exercises_lists_block_sum():
    proc = _run("exercises")
    assert proc.returncode == 0
    assert any(line.split()[0] == "reduction.block_sum" for line in proc.stdout.splitlines())


def test_missing_file_is_usage_error():
    _one_line_error(_run("judge", "nope.cu", "--exercise", "reduction.block_sum"), 2, "no such file: nope.cu")


def test_unknown_exercise_is_usage_error():
    _one_line_error(_run("judge", str(BLOCK_SUM / "reference.cu"), "--exercise", "no.such"), 2,
                    "unknown exercise 'no.such'")


def test_a_bad_judge_setting_is_a_usage_error_naming_it():
    source = str(BLOCK_SUM / "reference.cu")
    for env, text in (({"KDOJO_TESTS_BUDGET_S": "soon"}, "KDOJO_TESTS_BUDGET_S: expected seconds, got 'soon'"),
                      ({"KDOJO_JOB_MEMORY_MB": "-1"}, "KDOJO_JOB_MEMORY_MB: expected a whole number")):
        _one_line_error(_run("judge", source, "--exercise", "reduction.block_sum", "--backend", "emu",
                             env=env), 2, text)


def test_missing_arguments_and_unknown_command():
    _one_line_error(_run("judge"), 2, "required")
    _one_line_error(_run("judge", "x.cu", "--exercise", "a.b", "--backend", "tpu"), 2, "invalid choice")
    proc = _run("frobnicate")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


@pytest.mark.skipif(gpu_visible(), reason="checks the no-GPU message")
def test_cuda_backend_without_gpu_exits_3():
    _one_line_error(_run("judge", str(BLOCK_SUM / "reference.cu"), "--exercise", "reduction.block_sum",
                         "--backend", "cuda", "--json"), 3, "backend 'cuda' is unavailable")


def test_malformed_spec_is_one_line(scratch_exercise):
    spec = scratch_exercise / "exercise.toml"
    spec.write_text(spec.read_text().replace('grid = "ceil_div(N, 256)"', 'grid = "ceil_div(M, 256)"'))
    lessons = scratch_exercise.parents[2]
    proc = _run("judge", str(BLOCK_SUM / "reference.cu"), "--exercise", "reduction.block_sum",
                "--lessons", str(lessons))
    _one_line_error(proc, 2, "launch[0].grid: unknown name 'M'")


def test_render_shows_verdict_tests_and_diagnostics():
    doc = result.build(exercise="reduction.block_sum", backend="cuda", verdict="wrong_answer",
                       message="1 of 2 tests failed",
                       compile_={"ok": True, "seconds": 0.03, "log": "",
                                 "diagnostics": [{"line": 3, "column": 5, "severity": "warning",
                                                  "message": "unused"}]},
                       tests=[{"name": "n=1", "status": "pass", "message": "", "output": ""},
                              {"name": "n=2", "status": "fail", "message": "out[0]: expected 3, got 1",
                               "output": "hi\n"}])
    text = render(doc, colour=True)
    assert "\x1b[31mwrong_answer\x1b[0m" in text
    assert "line 3:5" in text and "out[0]: expected 3, got 1" in text and "| hi" in text
    assert "\x1b" not in render(doc, colour=False)
