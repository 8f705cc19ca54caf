"""Every lesson's slow/fast pair (bench/profile_pairs.toml, #26): the emulator's estimate ranks them
as a GPU measures them, and the slow one gets the finding that names its cause. A pair the model
is known to miss says why (`known_miss`) and is expected to fail until the model learns it."""

from __future__ import annotations

import sys

import pytest

from kernels.catalog import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))
from profile_pairs import emulator_profile, load_pairs  # noqa: E402 — bench/ is not a package

PAIRS = load_pairs()
_PROFILES: dict[tuple[str, str], dict] = {}


def _profile(exercise: str, file: str) -> dict:
    if (exercise, file) not in _PROFILES:
        _PROFILES[exercise, file] = emulator_profile(exercise, file) or {}
    return _PROFILES[exercise, file]


def test_every_pair_names_files_that_exist():
    from kernels.catalog import find_exercise

    for pair in PAIRS:
        exercise = find_exercise(pair["exercise"])
        for side in ("slow", "fast"):
            file = pair[side]
            if file.startswith("baseline:"):
                assert file.split(":", 1)[1] in {b.name for b in exercise.benchmark.baselines}, pair
            else:
                assert (exercise.folder / file).is_file(), pair


def _params():
    for pair in PAIRS:
        marks = [pytest.mark.corpus]
        if pair.get("known_miss"):
            marks.append(pytest.mark.xfail(reason=pair["known_miss"], strict=True))
        yield pytest.param(pair, marks=marks, id=f"{pair['exercise']}:{pair['slow']}>{pair['fast']}")


@pytest.mark.parametrize("pair", _params())
def test_the_estimate_ranks_the_pair_and_names_the_cause(pair):
    slow, fast = _profile(pair["exercise"], pair["slow"]), _profile(pair["exercise"], pair["fast"])
    assert slow.get("estimate") and fast.get("estimate"), "both files get an estimate"
    assert slow["estimate"]["time_ms"] > fast["estimate"]["time_ms"]
    codes = [f["code"] for f in slow["findings"]]
    if pair["finding"]:
        assert pair["finding"] in codes
