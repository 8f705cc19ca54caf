"""A busy judge is not the learner's fault.

Every sandbox runs as uid 65534, and RLIMIT_NPROC counts all of that uid's
tasks, the sandboxes started later included. A compile whose limit left no
room for them failed to start `cc1plus`/`ld` when others started meanwhile
("vfork: Resource temporarily unavailable"), and the learner got
`compile_error` (24 compiles at once did it on a 2-core machine; the H100
worker did it with 12 test processes). Here uid 65534 gains 100 tasks while a
correct kernel is being compiled: the compile must still succeed.
"""

from __future__ import annotations

import os
import subprocess
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


def _as_nobody() -> None:
    os.setgroups([])
    os.setgid(jail.NOBODY)
    os.setuid(jail.NOBODY)


def test_a_compile_survives_other_sandboxes_starting_meanwhile():
    if not (jail.mode().sandboxed and jail.mode().as_nobody):
        pytest.skip("the sandboxes run as uid 65534 only when the judge is root")
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
    time.sleep(0.3)  # the compile's sandboxes have counted uid 65534's tasks by now
    others = [subprocess.Popen(["sleep", "60"], preexec_fn=_as_nobody) for _ in range(100)]
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
