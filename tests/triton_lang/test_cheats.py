"""The Triton cheat corpus (#29): hostile learner files against the whole judge.

Each file in tests/triton_lang/cheats/ is named `<exercise>_<what>.triton.py` and opens with
`# CHEAT: <what it tries>` and `# VERDICT: <what the judge must say>` (never `accepted`, never
`internal_error`). The classes are those public GPU leaderboards have met: calling a library
or the reference instead of writing a kernel (numpy through the interpreter's objects on the
CPU target, ctypes, importlib, torch), caching outputs across calls and cases, detecting the
benchmark and doing less, reading other buffers or the expected output, monkeypatching Triton
or the judge, timing tricks, escapes (files, sockets, processes, the answer pipe), exits and
bombs, and garbage in what `launch_K` returns.

Each is judged through `kernels.judge.Judge` on the CPU target (and on a GPU, marked `gpu`,
with the benchmark), must get exactly its promised verdict, and the same judge must then
still accept the exercise's reference: a cheat leaves nothing behind.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from kernels.contract import VERDICTS
from kernels.corpus import promised_verdict
from kernels.judge import Judge
from kernels.targets import emu_available
from kernels.triton import jail

REPO = Path(__file__).resolve().parents[2]
LESSONS_DIR = REPO / "lessons"
CHEATS = Path(__file__).with_name("cheats")
FILES = sorted(CHEATS.glob("*.triton.py"))
NEVER = ("accepted", "internal_error")
TLE_BUDGET_S = 2.0  # the tests' budget for a file that promises a time limit (× the CPU's scale of 4)

pytestmark = pytest.mark.corpus


def _exercises() -> dict[str, tuple[str, Path]]:
    """Short name ("saxpy") → (exercise id, folder) of every exercise that offers Triton."""
    found = {}
    for spec in LESSONS_DIR.glob("*/exercises/*/exercise.toml"):
        data = tomllib.loads(spec.read_text(encoding="utf-8"))
        if "triton" in data:
            found[spec.parent.name] = (data["id"], spec.parent)
    return found


EXERCISES = _exercises()


def _header(path: Path) -> dict[str, str]:
    fields = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        key, _, value = line[1:].strip().partition(":")
        fields[key.strip()] = value.strip()
    return fields


def _exercise_of(path: Path) -> tuple[str, Path]:
    short = max((name for name in EXERCISES if path.name.startswith(name + "_")), key=len)
    return EXERCISES[short]


def _params():
    for path in FILES:
        yield pytest.param("emu", path, id=f"emu-{path.name}")
        yield pytest.param("cuda", path, id=f"cuda-{path.name}", marks=pytest.mark.gpu)


def test_every_cheat_names_its_exercise_its_trick_and_a_verdict_that_is_not_acceptance():
    assert 25 <= len(FILES) <= 40
    for path in FILES:
        header = _header(path)
        assert header.get("CHEAT"), f"{path.name}: no `# CHEAT:` line in its leading comment"
        verdict = promised_verdict(path)  # raises for accepted / internal_error / an unknown one
        assert header.get("VERDICT") == verdict and verdict in VERDICTS and verdict not in NEVER, path.name
        assert any(path.name.startswith(name + "_") for name in EXERCISES), f"{path.name}: no such exercise"


@pytest.mark.parametrize(("backend", "path"), list(_params()))
def test_each_cheat_gets_its_verdict_and_leaves_the_judge_healthy(backend, path):
    if backend == "emu" and not emu_available()[0]:
        pytest.skip(f"emulator backend not available here: {emu_available()[1]}")
    refused = jail.refusal()
    if refused:
        pytest.skip(refused)
    exercise_id, folder = _exercise_of(path)
    want = promised_verdict(path)
    budget = TLE_BUDGET_S if want == "time_limit_exceeded" else None
    with Judge(LESSONS_DIR, backend=backend, keep_spare=False, tests_budget_s=budget) as judge:
        got = judge.run(path.read_text(encoding="utf-8"), exercise_id, bench=backend == "cuda", language="triton")
        said = f"{path.name}: {got['verdict']} ({got.get('message_code')}): {got.get('message')}"
        assert got["verdict"] not in NEVER, said
        assert got["verdict"] == want, f"promised {want}; {said}"
        reference = (folder / "reference.triton.py").read_text(encoding="utf-8")
        after = judge.run(reference, exercise_id, bench=False, language="triton")
        assert after["verdict"] == "accepted", f"after {path.name} the reference got {after['verdict']}: " \
                                               f"{after.get('message')}"
