"""The lessons' slow/fast pairs (bench/profile_pairs.toml, #26): the emulator's estimate ranks them
as a GPU measures them, and the slow one gets the finding that names its cause. A pair the model
is known to miss says why (`known_miss`) and is expected to fail until the model learns it.

Two `corpus` tests: lessons 06, 07, 08 and 21, whose pairs the issue named, end to end on the
emulator (the learner's path: a sample of the benchmark launch, counted and estimated); every pair
of two lesson files, the model as it is now on the counts the emulator stored for them
(bench/data/profile-agreement-2026-11-29/, bench/profile_agreement.py --backend emu --all)."""

from __future__ import annotations

import sys

import pytest

from kernels.exercises import REPO_ROOT, find_exercise

sys.path.insert(0, str(REPO_ROOT / "bench"))
from profile_pairs import counts_table, emulator_profile, load_pairs  # noqa: E402 — bench/ is no package

PAIRS = load_pairs()
END_TO_END = ("coalescing.", "shared-tiling.", "histogram.", "gated-mlp.")
STORED_COUNTS = REPO_ROOT / "bench" / "data" / "profile-agreement-2026-11-29" / "emu.jsonl.gz"
_PROFILES: dict[tuple[str, str], dict] = {}


def _profile(exercise: str, file: str) -> dict:
    if (exercise, file) not in _PROFILES:
        _PROFILES[exercise, file] = emulator_profile(exercise, file) or {}
    return _PROFILES[exercise, file]


def test_every_pair_names_files_that_exist():
    for pair in PAIRS:
        exercise = find_exercise(pair["exercise"])
        for side in ("slow", "fast"):
            file = pair[side]
            if file.startswith("baseline:"):
                assert file.split(":", 1)[1] in {b.name for b in exercise.benchmark.baselines}, pair
            else:
                assert (exercise.folder / file).is_file(), pair


def _params(pairs):
    for pair in pairs:
        marks = [pytest.mark.corpus]
        if pair.get("known_miss"):
            marks.append(pytest.mark.xfail(reason=pair["known_miss"], strict=True))
        yield pytest.param(pair, marks=marks, id=f"{pair['exercise']}:{pair['slow']}>{pair['fast']}")


@pytest.mark.parametrize("pair", list(_params(p for p in PAIRS if p["exercise"].startswith(END_TO_END))))
def test_the_estimate_ranks_the_pair_and_names_the_cause(pair):
    slow, fast = _profile(pair["exercise"], pair["slow"]), _profile(pair["exercise"], pair["fast"])
    assert slow.get("estimate") and fast.get("estimate"), "both files get an estimate"
    assert slow["estimate"]["time_ms"] > fast["estimate"]["time_ms"]
    codes = [f["code"] for f in slow["findings"]]
    if pair["finding"]:
        assert pair["finding"] in codes


@pytest.mark.corpus
def test_the_model_ranks_every_stored_pair_as_the_h100_measured():
    rows = counts_table(PAIRS, str(STORED_COUNTS))
    assert len(rows) >= 40  # every correct solution 1.3x slower than its reference, but the misses
    wrong = [(p["exercise"], p["slow"], round(es, 4), round(ef, 4)) for p, es, ef, gs, gf in rows
             if (es > ef) != (gs > gf) and not p.get("known_miss")]
    assert wrong == []
    fixed = [(p["exercise"], p["slow"]) for p, es, ef, gs, gf in rows if p.get("known_miss") and es > ef]
    assert fixed == []  # a known miss the model now ranks: take its known_miss out
