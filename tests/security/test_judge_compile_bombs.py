"""NVRTC compile bombs end as compile_error within the compiler's limits (#11).

NVRTC runs in a helper process (kernels/nvrtc_child.py) with 2 GB of address
space and compile_s of CPU and wall time. Each bomb is judged by a real Judge
(emulator backend: NVRTC runs first, on every backend); the verdict, the
message's real limits and elapsed time, the wall time, the job's peak memory
(from the cgroup or the reaped process's rusage) and a correct kernel judged
next by the same Judge are asserted.
"""

from __future__ import annotations

import re
import time

import pytest

from kernels import contract as result

from .judge_support import (CORRECT_SOURCE, GIB, backends, job_cpu_s, job_peak_bytes,  # noqa: F401
                            lessons, loaded)

# 2^26 distinct instantiations: NVRTC's memory grows until its 2 GB is spent
TEMPLATE_BOMB = CORRECT_SOURCE + """
template <int D, int W> struct Tree {
    typedef Tree<D - 1, W * 2 + 1> left;
    typedef Tree<D - 1, W * 2> right;
    static const int value = left::value + right::value;
};
template <int W> struct Tree<0, W> { static const int value = W; };
__global__ void bomb(int* out) { out[0] = Tree<26, 0>::value; }
"""

# each level doubles the expansion: 2^30 tokens, cheap in memory, minutes of CPU
MACRO_BOMB = "#define A0 x\n" + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 31)) + \
    "__global__ void bomb(int* out) { int x = 0; A30; out[0] = x; }\n" + CORRECT_SOURCE


def _judge_bomb(lessons, source: str, backend: str) -> tuple[dict, float, int, float, dict]:
    from kernels.judge import Judge

    with Judge(lessons, backend=backend) as judge:
        assert judge.wait_ready(120)
        started = time.monotonic()
        doc = judge.run(source, "reduction.block_sum", bench=False)
        elapsed = time.monotonic() - started
        peak, cpu_s = job_peak_bytes(judge), job_cpu_s(judge)
        after = judge.run(CORRECT_SOURCE, "reduction.block_sum", bench=False)
    return doc, elapsed, peak, cpu_s, after


def _assert_wall(elapsed: float) -> None:
    # 20 s on a machine with a core to spare; on an overloaded one a starved compile
    # may use up to 4 × compile_s of wall time (its CPU stays bounded)
    assert elapsed < (4 * 15 + 10 if loaded() else 20), f"{elapsed:.1f} s of wall time"


def _limits_in(message: str) -> tuple[str, float]:
    match = re.search(r"the compiler ran past its (.+?) / (\d+) s: .* after (\d+\.\d) s", message)
    assert match, message
    return match[1], float(match[3])


@pytest.mark.parametrize("backend", backends())
def test_a_template_bomb_runs_out_of_the_compilers_memory(lessons, backend):
    doc, elapsed, peak, cpu_s, after = _judge_bomb(lessons, TEMPLATE_BOMB, backend)
    assert doc["verdict"] == "compile_error", doc["message"]
    assert "the compiler ran past its 2 GB / 15 s: out of memory after" in doc["message"]
    size, reported = _limits_in(doc["message"])
    assert size == "2 GB" and (reported < 15 or loaded())
    assert cpu_s < 15 + 20  # the helper's CPU, and the job process's own start-up (CUDA: seconds)
    _assert_wall(elapsed)
    assert peak < 2.5 * GIB, f"peak {peak / GIB:.2f} GiB"
    assert doc["tests"] == [] and result.validate(doc) == []
    assert after["verdict"] == "accepted", after["message"]


@pytest.mark.parametrize("backend", backends())
def test_a_macro_bomb_runs_out_of_the_compilers_time(lessons, backend):
    from .judge_support import set_limit

    set_limit(lessons, "compile_s", 5)  # the exercise's 15 s wall, reached sooner
    doc, elapsed, peak, cpu_s, after = _judge_bomb(lessons, MACRO_BOMB, backend)
    assert doc["verdict"] == "compile_error", doc["message"]
    assert "the compiler ran past its 2 GB / 5 s" in doc["message"]
    _, reported = _limits_in(doc["message"])
    assert 5 <= reported <= elapsed, doc["message"]  # the real elapsed time, not the limit
    assert cpu_s < 5 + 20
    _assert_wall(elapsed)
    assert peak < 2.5 * GIB
    assert after["verdict"] == "accepted", after["message"]


def test_the_compile_limit_follows_the_exercise(lessons):
    from kernels.compile import compile_submission
    from kernels.spec_parse import load_spec

    from .judge_support import set_limit

    set_limit(lessons, "compile_s", 2)
    exercise = load_spec(lessons / "02-reduction" / "exercises" / "block_sum" / "exercise.toml")
    started = time.monotonic()
    compiled = compile_submission(MACRO_BOMB, exercise)
    assert time.monotonic() - started < 2 * 4 + 1  # at most WALL_CAP_FACTOR × 2 s, starved
    assert compiled.status == "compile_error"
    assert re.search(r"the compiler ran past its 2 GB / 2 s: (still running|it stopped \(CPU time\)) "
                     r"after \d+\.\d s", compiled.log), compiled.log
    assert compile_submission(CORRECT_SOURCE, exercise).ok  # a fresh helper took over
