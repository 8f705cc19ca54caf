"""Shared by the tests/security/test_judge_*.py files: the block_sum exercise, scratch copies.

The fixtures are imported by name into each test module (pytest finds them there),
so this folder needs no conftest of its own beside the emulator's tests.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BLOCK_SUM = REPO / "lessons" / "02-reduction" / "exercises" / "block_sum"
CORRECT_SOURCE = (BLOCK_SUM / "reference.cu").read_text()
GIB = 1 << 30


def backends():
    """The emulator where it runs here, and the GPU (`gpu`-marked: skipped without one)."""
    from kernels.targets import emu_available

    no_emu = pytest.mark.skipif(not emu_available()[0], reason="emulator backend not available")
    return [pytest.param("emu", marks=no_emu), pytest.param("cuda", marks=pytest.mark.gpu)]


@pytest.fixture
def lessons(tmp_path: Path) -> Path:
    """A lessons folder holding a copy of block_sum (edit its spec freely)."""
    target = tmp_path / "lessons" / "02-reduction" / "exercises" / "block_sum"
    shutil.copytree(BLOCK_SUM, target)
    return tmp_path / "lessons"


def set_limit(lessons: Path, key: str, value: float) -> None:
    spec = lessons / "02-reduction" / "exercises" / "block_sum" / "exercise.toml"
    text = spec.read_text()
    old = next(line for line in text.splitlines() if line.startswith(f"{key} ="))
    spec.write_text(text.replace(old, f"{key} = {value:g}"))


def loaded() -> bool:
    """More runnable work than cores: wall-clock targets do not apply (CPU ones do)."""
    import os

    return os.getloadavg()[0] > (os.cpu_count() or 1)


def job_cpu_s(judge) -> float:
    """CPU time of the last job process and the children it reaped (the NVRTC helper)."""
    job = judge.current_job
    assert job is not None and job.wait(30) is not None and job.cpu_s is not None
    return job.cpu_s


def job_peak_bytes(judge) -> int:
    """The last job process's peak memory (cgroup memory.peak or rusage), once reaped."""
    job = judge.current_job
    assert job is not None and job.wait(30) is not None, "the job process did not exit"
    assert job.peak_bytes, "no peak memory was recorded"
    return job.peak_bytes


def live_members(pgid: int) -> list[int]:
    """Processes of a process group that are still running (zombies excluded: where pid 1
    does not reap orphans, as in some VMs, a killed orphan stays a zombie)."""
    import os

    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state, ppid, pgrp, …
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found
