"""Hostile submissions against the emulator with every source check bypassed.

Each attack in emu_attacks/ is judged by the real pipeline and the real
sandbox, but with NVRTC and the emulator's source policy replaced by a pass
(a monkeypatch in this test process: nothing a submission or a job document
can switch on). Containment must hold anyway: the verdict is the expected
one, the host's content (a marker file made here) is nowhere in the result,
the wall time and the peak memory of every child stay bounded, and a correct
kernel is judged normally afterwards by the same backend.
"""

from __future__ import annotations

import dataclasses
import json
import resource
import time
import uuid
from pathlib import Path

import pytest

from kernels import pipeline
from kernels.catalog import find_exercise
from kernels.compile import CompileResult
from kernels.constants import read_constants
from kernels.emu import backend as emu_backend
from kernels.emu import jail
from kernels.emu.backend import EmuBackend
from kernels.spec import Limits

ATTACKS = Path(__file__).resolve().parent / "emu_attacks"
CORRECT = Path(__file__).resolve().parents[2] / "lessons/02-reduction/exercises/block_sum/solutions/correct/warp_shuffle.cu"
WALL_S = 20.0
PEAK_BYTES = 2.5e9


@pytest.fixture(scope="module")
def exercise():
    ex = find_exercise("reduction.block_sum")
    return dataclasses.replace(ex, limits=Limits(compile_s=15, run_s=2, bench_s=5))


@pytest.fixture(scope="module")
def backend():
    return EmuBackend()


@pytest.fixture
def secret(tmp_path_factory):
    """A host file with a random secret: no result may ever contain it."""
    path = Path("/tmp") / f"kdojo-secret-{uuid.uuid4().hex}"
    text = f"SECRET-{uuid.uuid4().hex}"
    path.write_text(text + "\n")
    yield path, text
    path.unlink(missing_ok=True)


def _bypass_checks(mp: pytest.MonkeyPatch) -> None:
    def compiled_ok(source, exercise, arch=None):
        constants, _, _ = read_constants(source, exercise)
        return CompileResult("ok", 0.0, constants=constants)

    mp.setattr(pipeline, "compile_submission", compiled_ok)
    mp.setattr(emu_backend, "prepare", lambda source: source)


def judge(exercise, backend, source: str, bypass: bool = True) -> tuple[dict, float]:
    started = time.monotonic()
    with pytest.MonkeyPatch.context() as mp:
        if bypass:
            _bypass_checks(mp)
        result = pipeline.run_pipeline(exercise, source, backend, bench=False, seed=3, emit=lambda event: None)
    return result, time.monotonic() - started


def attack(name: str, secret_path: Path | None = None, **defines: int) -> str:
    text = (ATTACKS / name).read_text()
    if secret_path is not None:
        text = text.replace("@MARKER@", str(secret_path))
    return "".join(f"#define {k} {v}\n" for k, v in defines.items()) + text


def assert_contained(result: dict, wall_s: float, secret_text: str, exercise, backend) -> None:
    assert secret_text not in json.dumps(result), "host content in the result"
    assert result["verdict"] not in ("accepted", "internal_error"), result["message"]
    assert wall_s < WALL_S, f"took {wall_s:.1f} s"
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    assert peak < PEAK_BYTES, f"a child reached {peak / 1e9:.2f} GB"
    after, _ = judge(exercise, backend, CORRECT.read_text(), bypass=False)
    assert after["verdict"] == "accepted", after["message"]


def outputs(result: dict) -> str:
    return "\n".join(t.get("output") or "" for t in result["tests"])


@pytest.mark.parametrize("name, verdict", [
    ("ctor_before_main.cu", "rejected"),
    ("fork_bomb.cu", "rejected"),
    ("socket.cu", "rejected"),
    ("raw_syscall_instruction.cu", "rejected"),
    ("sigkill_self.cu", "rejected"),
    ("stdout_garbage.cu", "runtime_error"),
])
def test_forbidden_system_calls_end_the_program(exercise, backend, secret, name, verdict):
    result, wall = judge(exercise, backend, attack(name, secret[0]))
    assert result["verdict"] == verdict, result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_replaced_libc_cannot_open_host_files(exercise, backend, secret):
    result, wall = judge(exercise, backend, attack("replace_libc.cu", secret[0]))
    assert result["verdict"] == "wrong_answer", result["message"]
    assert "fd=-1" in json.dumps(result)  # open() was refused by the outer filter
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("name", ["incbin_host_file.cu", "include_host_file.cu", "include_dev_zero.cu"])
def test_the_compiler_sees_no_host_files(exercise, backend, secret, name):
    result, wall = judge(exercise, backend, attack(name, secret[0]))
    assert result["verdict"] == "compile_error", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_threads_are_bounded(exercise, backend, secret):
    if not jail.mode().as_nobody and jail.os.geteuid() == 0:
        pytest.skip("bubblewrap as root: RLIMIT_NPROC does not bind (cgroup pids.max would)")
    result, wall = judge(exercise, backend, attack("thread_bomb.cu"))
    made = [int(line.split("=")[1]) for line in outputs(result).splitlines() if line.startswith("threads=")]
    # RLIMIT_NPROC: uid 65534's tasks when the program started plus jail.PROGRAM_TASKS.
    assert made and max(made) < 100
    assert_contained(result, wall, secret[1], exercise, backend)


def test_memory_is_bounded(exercise, backend, secret):
    # Touching 2 GB takes seconds on a busy machine: a longer case limit, still under WALL_S.
    slow = dataclasses.replace(exercise, limits=Limits(compile_s=15, run_s=12, bench_s=5))
    result, wall = judge(slow, backend, attack("malloc_20gb.cu"))
    got = [int(line.split("=")[1]) for line in outputs(result).splitlines() if line.startswith("MB=")]
    assert got and max(got) * (1 << 20) <= jail.program_memory_bytes()
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("huge", [0, 1])
def test_a_forged_answer_is_the_learners_runtime_error(exercise, backend, secret, huge):
    result, wall = judge(exercise, backend, attack("forged_response.cu", HUGE=huge))
    assert result["verdict"] == "runtime_error", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_forged_stderr_reports_decide_nothing(exercise, backend, secret):
    result, wall = judge(exercise, backend, attack("stderr_forgery.cu"))
    assert result["verdict"] == "wrong_answer", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_sleeping_ends_at_the_case_limit(exercise, backend, secret):
    result, wall = judge(exercise, backend, attack("sleep_per_case.cu"))
    assert result["verdict"] == "time_limit_exceeded", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)
