"""The benchmark-cheat corpus on a real GPU (#26): no kernel fakes a time.

Each cheat in tests/judge/cheats/ passes the tests and then tries to fake the
benchmark: replaying outputs cached per input set, skipping calls, computing a
sample, rewriting its inputs, launching work the timer might not see. The
judge must give the verdict cheats.toml names, or, where a cheat merely gains
nothing, accept it at the honest kernel's time.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from kernels import contract as result

from .conftest import REPO

pytestmark = pytest.mark.gpu

CHEATS = Path(__file__).with_name("cheats")
MANIFEST = tomllib.loads((CHEATS / "cheats.toml").read_text())


def cheat_source(name: str) -> str:
    """The cheat's file, after the exercise's reference kernel renamed honest_<kernel>
    when the manifest asks for it."""
    entry = MANIFEST[name]
    source = (CHEATS / f"{name}.cu").read_text()
    if not entry["honest"]:
        return source
    from kernels.exercises import find_exercise

    exercise = find_exercise(entry["exercise"], REPO / "lessons")
    honest = (exercise.folder / "reference.cu").read_text()
    for kernel in exercise.kernels:
        honest, count = re.subn(
            r'extern "C" __global__ (?:__launch_bounds__\([^)]*\)\s*)?void\s+' + kernel.name + r"\(",
            f"__device__ __forceinline__ void honest_{kernel.name}(", honest)
        assert count == 1, (name, kernel.name)
    return honest + "\n" + source


@pytest.fixture(scope="module")
def judge():
    from kernels.judge import Judge

    with Judge(REPO / "lessons", backend="cuda") as j:
        yield j


def test_the_corpus_files_and_the_manifest_agree():
    assert sorted(p.stem for p in CHEATS.glob("*.cu")) == sorted(MANIFEST)
    for name, entry in MANIFEST.items():
        assert entry["verdict"] in result.VERDICTS, name
        codes = entry.get("code", [])
        assert all(code in result.MESSAGE_CODES for code in (codes if isinstance(codes, list) else [codes])), name


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_each_cheat_gets_its_verdict(judge, name):
    entry = MANIFEST[name]
    doc = judge.run(cheat_source(name), entry["exercise"], bench=True, max_bench_sizes=1)
    assert result.validate(doc) == []
    assert doc["verdict"] == entry["verdict"], (name, doc["message"])
    if "code" in entry:  # one code, or the codes a cheat may end with (the first check that catches it)
        codes = entry["code"] if isinstance(entry["code"], list) else [entry["code"]]
        assert doc.get("message_code") in codes, (name, doc["message"])
    if entry["verdict"] != "accepted":
        assert doc["benchmark"] is None, name
        return
    assert all(t["status"] == "pass" for t in doc["tests"]), name
    bench = doc["benchmark"]
    assert "refused" not in bench and bench["geomean_ms"] > 0, name
    for size in bench["sizes"]:
        assert size["ms"] >= size["floor_ms"] > 0, (name, size)
    if entry.get("gains_nothing"):
        honest = judge.run(_reference_source(entry["exercise"]), entry["exercise"], bench=True,
                           max_bench_sizes=1)
        assert honest["verdict"] == "accepted", honest["message"]
        cheat_ms, honest_ms = bench["sizes"][0]["ms"], honest["benchmark"]["sizes"][0]["ms"]
        # the cheat also fingerprints and copies D into its cache: never faster
        assert cheat_ms >= 0.9 * honest_ms, (cheat_ms, honest_ms)


def _reference_source(exercise_id: str) -> str:
    from kernels.exercises import find_exercise

    return (find_exercise(exercise_id, REPO / "lessons").folder / "reference.cu").read_text()
