"""The ncu child starts before the benchmark, compiles and waits, off the GPU, until released (#16).

`ncu` is outside our code, so these tests put a stand-in on $KDOJO_NCU: a script that,
as the child does once compiled, creates the ready file, records when it saw the release
file appear in the child's folder and then prints the CSV a real ncu printed on an H100
(tests/profiling/data/ncu_block_sum.csv). What runs is ours: start_profile,
PendingProfile.finish / cancel, the CSV parsing."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernels.profile import doc as prof
from kernels.exercises import find_exercise
from kernels.profile.gpu import start_profile

CSV = Path(__file__).parent / "data" / "ncu_block_sum.csv"


def fake_ncu_script(ready_after_s: float = 0.0) -> str:
    """ncu and the child: compiled after `ready_after_s`, then released, then the CSV."""
    return f"""#!{sys.executable}
import json, pathlib, sys, time
job = json.loads(sys.argv[-1])
folder = pathlib.Path(job["source"]).parent
(folder / "started").write_text(str(time.monotonic()))
time.sleep({ready_after_s!r})  # the child's compile
(folder / "ready").touch()
while not (folder / "release").exists():
    time.sleep(0.005)
(folder / "released_seen").write_text(str(time.monotonic()))
sys.stdout.write(pathlib.Path({str(CSV)!r}).read_text())
"""


def stand_in_ncu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> Path:
    """`script` as the ncu the profiler finds ($KDOJO_NCU)."""
    path = tmp_path / "ncu"
    path.write_text(script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("KDOJO_NCU", str(path))
    return path


@pytest.fixture
def fake_ncu(tmp_path, monkeypatch):
    return stand_in_ncu(tmp_path, monkeypatch, fake_ncu_script())


def _wait_for(path: Path, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.01)


def test_the_child_waits_for_its_release_then_the_profile_is_read(fake_ncu):
    exercise = find_exercise("reduction.block_sum")
    pending = start_profile(exercise, "// source\n", len(exercise.tests) - 1, 1, exercise.lesson_dir.parent)
    folder = Path(pending._tmp.name)
    job = json.loads(pending.proc.args[-1])
    assert job["wait"] is True and Path(job["source"]).read_text() == "// source\n"
    _wait_for(folder / "started")
    time.sleep(0.2)
    assert pending.proc.poll() is None and not (folder / "released_seen").exists()  # still waiting
    profile = pending.finish({"block_sum": {"registers_per_thread": 16, "static_shared_bytes": 128,
                                            "stack_frame_bytes": 0, "spill_bytes": 0}}, budget_s=10)
    assert profile is not None and prof.validate(profile) == []
    assert profile["source"] == "ncu" and profile["kernels"][0]["name"] == "block_sum"
    assert not folder.exists()  # its files are gone


def test_a_cancelled_child_is_stopped_and_leaves_nothing(fake_ncu):
    exercise = find_exercise("reduction.block_sum")
    pending = start_profile(exercise, "// source\n", 0, 1, exercise.lesson_dir.parent)
    folder = Path(pending._tmp.name)
    _wait_for(folder / "started")
    pending.cancel()
    assert pending.proc.returncode is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pending.proc.pid, 0)
    assert not folder.exists()
    pending.cancel()  # idempotent


def test_the_budget_starts_once_the_child_has_compiled(tmp_path, monkeypatch):
    # a Triton compile takes seconds: they are not the profile's budget
    stand_in_ncu(tmp_path, monkeypatch, fake_ncu_script(ready_after_s=1.5))
    exercise = find_exercise("reduction.block_sum")
    pending = start_profile(exercise, "// source\n", len(exercise.tests) - 1, 1, exercise.lesson_dir.parent)
    started = time.monotonic()
    profile = pending.finish({}, budget_s=1.0)
    assert profile is not None and profile["kernels"][0]["name"] == "block_sum"
    assert time.monotonic() - started >= 1.5


def test_a_child_that_ends_before_it_is_ready_gives_no_profile_at_once(tmp_path, monkeypatch):
    # the child's compile failed: it exits without the ready file
    stand_in_ncu(tmp_path, monkeypatch, f"#!{sys.executable}\nimport sys\nsys.exit(2)\n")
    exercise = find_exercise("reduction.block_sum")
    pending = start_profile(exercise, "// source\n", 0, 1, exercise.lesson_dir.parent)
    started = time.monotonic()
    assert pending.finish({}, budget_s=10) is None
    assert time.monotonic() - started < 5 and pending.proc.returncode == 2


def test_past_its_budget_there_is_no_profile_and_nothing_left_running(tmp_path, monkeypatch):
    # compiled, released, and then never done
    stand_in_ncu(tmp_path, monkeypatch, f"#!{sys.executable}\nimport json, pathlib, sys, time\n"
                 "(pathlib.Path(json.loads(sys.argv[-1])['source']).parent / 'ready').touch()\ntime.sleep(60)\n")
    exercise = find_exercise("reduction.block_sum")
    pending = start_profile(exercise, "// source\n", 0, 1, exercise.lesson_dir.parent)
    started = time.monotonic()
    assert pending.finish({}, budget_s=0.5) is None
    assert time.monotonic() - started < 5
    assert pending.proc.returncode is not None


def test_a_waiting_child_ends_when_the_job_that_started_it_is_gone(tmp_path):
    # the judge's job process killed mid-benchmark: nobody will release the child
    exercise = find_exercise("reduction.block_sum")
    src = tmp_path / "submission.cu"
    src.write_text(exercise.reference_cu_path.read_text())
    job_process = subprocess.Popen(["sleep", "60"])
    job = {"lessons": str(exercise.lesson_dir.parent), "exercise": exercise.id, "source": str(src), "case": 0,
           "seed": 1, "arch": "sm_90", "wait": True, "parent": job_process.pid}
    child = subprocess.Popen([sys.executable, "-m", "kernels.profile.gpu", "child", json.dumps(job)],
                             cwd=Path(__file__).resolve().parents[2])
    time.sleep(1.0)
    assert child.poll() is None  # compiled, now waiting
    job_process.kill()
    job_process.wait()
    assert child.wait(timeout=15) == 4  # gave up, before touching the GPU
