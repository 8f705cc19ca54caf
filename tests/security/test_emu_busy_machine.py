"""A busy judge is not the learner's fault.

RLIMIT_NPROC counts all of a uid's tasks, machine-wide. When every sandbox ran
as uid 65534, a compile whose limit left no room for the sandboxes started
later failed to start `cc1plus`/`ld` ("vfork: Resource temporarily
unavailable"), and the learner got `compile_error` (24 compiles at once did it
on a 2-core machine; the H100 worker did it with 12 test processes). Now each
judge process's sandboxes run as a uid of their own (`jail.sandbox_uid`); the
tests below start 100 tasks as uid 65534 and as another judge's pool uid while a
correct kernel is compiled, and the compile must still succeed; two judge
processes never share a uid.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from kernels.exercises import find_exercise
from kernels.compile import compile_submission
from kernels.emu import build, jail
from kernels.emu.target import EmuTarget

# A correct block_sum whose compile takes a second or two (constant evaluation),
# so that other sandboxes start while its compiler runs.
SLOW_TO_COMPILE = """
constexpr unsigned slow() {
    unsigned s = 0;
    for (unsigned j = 0; j < 6; ++j) for (unsigned i = 0; i < 100000; ++i) s += i ^ (s >> 3);
    return s;
}
static_assert(slow() != 1, "");
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < N ? in[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
"""


def _as(uid: int):
    def become() -> None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    return become


def _pool_uid_of_another_process() -> int:
    """The uid a second judge process takes (it holds it while alive: this one lives 60 s)."""
    code = "import time\nfrom kernels.emu import jail\nprint(jail.sandbox_uid(), flush=True)\ntime.sleep(60)\n"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    _OTHERS.append(proc)
    return int(proc.stdout.readline())


_OTHERS: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _end_other_judges():
    yield
    while _OTHERS:
        proc = _OTHERS.pop()
        proc.kill()
        proc.wait()
        proc.stdout.close()


def _root_sandboxes() -> None:
    if not (jail.mode().sandboxed and jail.mode().as_nobody):
        pytest.skip("the sandboxes run as a pool uid only when the judge is root")


def test_each_judge_process_has_a_sandbox_uid_of_its_own():
    _root_sandboxes()
    mine, theirs = jail.sandbox_uid(), _pool_uid_of_another_process()
    assert mine == jail.sandbox_uid()  # held for the life of the process
    assert len({mine, theirs, jail.NOBODY}) == 3
    assert jail.UID_BASE <= mine < jail.UID_BASE + jail.UID_SLOTS
    work = jail.work_dir("kdojo-uid-test-")
    try:
        assert work.stat().st_uid == mine
    finally:
        work.rmdir()


@pytest.mark.parametrize("who", ["nobody", "another judge"])
def test_a_compile_survives_other_sandboxes_starting_meanwhile(who):
    _root_sandboxes()
    other_uid = jail.NOBODY if who == "nobody" else _pool_uid_of_another_process()
    exercise = find_exercise("reduction.block_sum")
    compiled = compile_submission(SLOW_TO_COMPILE, exercise)
    outcome: dict[str, object] = {}

    def compile_it() -> None:
        try:
            outcome["program"] = EmuTarget().build(exercise, SLOW_TO_COMPILE, compiled)
        except Exception as exc:  # noqa: BLE001 - the assertion below shows it
            outcome["error"] = exc

    for variant in build.VARIANTS:  # the runtime's cached objects: not part of the race
        build.runtime_objects(variant)
    worker = threading.Thread(target=compile_it)
    worker.start()
    time.sleep(0.3)  # the compile's sandboxes have counted their uid's tasks by now
    others = [subprocess.Popen(["sleep", "60"], preexec_fn=_as(other_uid)) for _ in range(100)]
    try:
        worker.join(timeout=120)
        assert not worker.is_alive()
    finally:
        for proc in others:
            proc.kill()
            proc.wait()
    assert "error" not in outcome, getattr(outcome.get("error"), "message", outcome.get("error"))
    program = outcome["program"]
    program.handle.close()


@pytest.mark.parametrize("log, ours", [
    ("g++: fatal error: cannot execute '/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus': vfork: "
     "Resource temporarily unavailable\ncompilation terminated.\n", True),
    ("/bin/sh: 1: Cannot fork\n", True),
    # What a learner can make the compiler print never reads as the machine's fault.
    ('submission.cu:3:2: error: #error "g++: vfork: Resource temporarily unavailable"\n'
     '    3 | #error "g++: vfork: Resource temporarily unavailable"\n', False),
])
def test_only_the_tools_own_fork_failure_counts_as_ours(log, ours):
    assert bool(build._OUT_OF_TASKS.search(log)) is ours
