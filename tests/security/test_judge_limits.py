"""Job-process limits: the cgroup v2 path where delegated, the rlimit fallback elsewhere (#11).

The fallback is what runs on a machine without a delegated cgroup v2 (this
CI machine has cgroup v1 only); the cgroup tests run only where `probe()`
finds one, and say so when skipped.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernels import cgroup
from kernels.targets import emu_available
from kernels.sandbox import JobLimits, _limit

CGROUP = cgroup.probe()
needs_cgroup = pytest.mark.skipif(not CGROUP.available, reason=f"no delegated cgroup v2: {CGROUP.reason}")


def _limits_of(pid: int) -> dict[str, str]:
    rows = Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]
    return {row[:26].strip(): row[26:47].strip() for row in rows}


def _child_limits(preexec) -> dict[str, str]:
    code = "import sys; sys.stdout.write(open('/proc/self/limits').read())"
    out = subprocess.run([sys.executable, "-c", code], preexec_fn=preexec, capture_output=True, text=True,
                         check=True).stdout.splitlines()[1:]
    return {row[:26].strip(): row[26:47].strip() for row in out}


def test_the_probe_says_in_one_line_why_there_is_no_cgroup():
    assert CGROUP.reason and "\n" not in CGROUP.reason
    if not CGROUP.available:
        with pytest.raises(cgroup.CgroupUnavailable) as raised:
            cgroup.JobCgroup.create("test", 64 << 20, 16)
        assert str(raised.value) == CGROUP.reason
        assert cgroup.describe().startswith("rlimits (")


def test_a_root_that_is_not_a_cgroup_is_refused(tmp_path):
    found = cgroup.probe(tmp_path)
    assert not found.available and found.reason == f"{tmp_path} is not a cgroup v2 directory"


@pytest.mark.skipif(CGROUP.available, reason="a cgroup v2 is delegated here: the fallback is not used")
def test_without_a_cgroup_the_emulators_job_gets_rlimit_as_and_cuda_does_not():
    limits = JobLimits(memory_mb=3000, pids=100)
    setup, group, via = _limit("emu", limits)
    assert group is None and via == "rlimit"
    emu = _child_limits(setup)
    assert emu["Max address space"] == str(3000 << 20) and emu["Max core file size"] == "0"
    cuda = _child_limits(_limit("cuda", limits)[0])
    assert cuda["Max address space"] == "unlimited"  # CUDA reserves terabytes of address space
    if cgroup.nproc_enforced():  # counted per user: set 100 above the user's tasks now
        assert int(emu["Max processes"]) >= 100
    else:  # root ignores RLIMIT_NPROC: left as it was
        assert emu["Max processes"] == _limits_of(os.getpid())["Max processes"]


@pytest.mark.skipif(not emu_available()[0], reason="emulator backend not available")
def test_a_real_job_process_runs_under_its_limits_and_reports_its_peak(monkeypatch):
    from kernels.sandbox import JobProcess

    monkeypatch.setenv("KDOJO_JOB_MEMORY_MB", "3500")
    job = JobProcess("emu", None)
    try:
        assert job.wait_ready(120)
        if job.cgroup is None:
            assert job.limited_by == "rlimit"
            assert _limits_of(job.proc.pid)["Max address space"] == str(3500 << 20)
        else:
            assert job.limited_by == "cgroup v2"
            assert (job.cgroup.path / "memory.max").read_text().strip() == str(3500 << 20)
            assert job.proc.pid in job.cgroup.pids()
    finally:
        job.close()
    assert job.peak_bytes and 10 << 20 < job.peak_bytes < 3500 << 20
    assert job.cgroup is None or not job.cgroup.path.exists()


def test_bad_limit_settings_name_the_variable(monkeypatch):
    monkeypatch.setenv("KDOJO_JOB_PIDS", "many")
    with pytest.raises(ValueError, match="^KDOJO_JOB_PIDS: expected a whole number"):
        JobLimits.from_env()
    monkeypatch.setenv("KDOJO_JOB_PIDS", "64")
    monkeypatch.setenv("KDOJO_JOB_MEMORY_MB", "2048")
    assert JobLimits.from_env() == JobLimits(memory_mb=2048, pids=64)


def test_memory_events_are_parsed():
    events = cgroup.parse_events("low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n")
    assert events["oom_kill"] == 1 and events["max"] == 12
    assert cgroup.parse_events("") == {}


@needs_cgroup
def test_a_job_cgroup_kills_a_process_past_its_memory_and_counts_it():
    with cgroup.JobCgroup.create("test", 64 << 20, 32) as group:
        hog = subprocess.run([sys.executable, "-c", "b = bytearray(256 << 20)"], preexec_fn=group.enter)
        assert hog.returncode == -9
        assert group.oom_kills() >= 1
        assert group.peak_bytes() is None or group.peak_bytes() <= 64 << 20
        path = group.path
    assert not path.exists()


@needs_cgroup
def test_a_job_cgroup_bounds_the_number_of_processes():
    code = ("import os\nmade = 0\ntry:\n    for _ in range(64):\n        if os.fork() == 0:\n"
            "            import time; time.sleep(5); os._exit(0)\n        made += 1\nexcept OSError:\n"
            "    pass\nprint(made)")
    with cgroup.JobCgroup.create("test", 256 << 20, 16) as group:
        out = subprocess.run([sys.executable, "-c", code], preexec_fn=group.enter, capture_output=True,
                             text=True, timeout=30)
        assert int(out.stdout) < 16
