"""The supervisor's baseline times (#26): kept per exercise, constants and size for a
while, dropped when the lesson's benchmark changes, and only in the shape a job sends."""

from __future__ import annotations

import json

import pytest

from kernels.baseline_cache import BaselineCache
from kernels.exercises import find_exercise

KEY = json.dumps([])  # block_sum has no compile constants


@pytest.fixture
def exercise(scratch_exercise):
    return find_exercise("reduction.block_sum", scratch_exercise.parents[2])


def _event(exercise, sizes: dict) -> dict:
    names = [b.name for b in exercise.benchmark.baselines]
    return {"stage": "_baselines", "key": KEY,
            "sizes": {index: dict(zip(names, times)) for index, times in sizes.items()}}


def test_times_are_kept_until_they_expire(exercise):
    now = [1000.0]
    cache = BaselineCache(ttl_s=600, clock=lambda: now[0])
    assert cache.known(exercise) == {}
    names = [b.name for b in exercise.benchmark.baselines]
    assert len(names) >= 2
    cache.store(exercise, _event(exercise, {"0": [25.7, 0.0094], "1": [None, 0.028]}))
    assert cache.known(exercise) == {KEY: {"0": dict(zip(names, [25.7, 0.0094])),
                                           "1": dict(zip(names, [None, 0.028]))}}
    now[0] += 300
    cache.store(exercise, _event(exercise, {"2": [None, 0.25]}))
    now[0] += 301  # sizes 0 and 1 are 601 s old now, size 2 301 s
    assert cache.known(exercise) == {KEY: {"2": dict(zip(names, [None, 0.25]))}}


def test_an_edited_baseline_or_reference_starts_afresh(exercise, scratch_exercise):
    cache = BaselineCache()
    cache.store(exercise, _event(exercise, {"0": [25.7, 0.0094]}))
    assert cache.known(exercise)
    source = next(b.source for b in exercise.benchmark.baselines if b.source is not None)
    source.write_text(source.read_text() + "\n// edited\n")
    assert cache.known(exercise) == {}
    edited = find_exercise("reduction.block_sum", scratch_exercise.parents[2])
    cache.store(edited, _event(edited, {"0": [20.0, 0.009]}))
    reference = scratch_exercise / "reference.py"
    reference.write_text(reference.read_text() + "\n# edited\n")
    assert cache.known(edited) == {}


@pytest.mark.parametrize("sizes", [
    {"0": {"naive": 1.0}},  # not every baseline
    {"0": {"naive": 1.0, "framework": 1.0, "extra": 1.0}},  # a name the exercise does not have
    {"0": [1.0, 2.0]},  # not a mapping
    {"0": {"naive": -1.0, "framework": 1.0}},  # not a time
    {"0": {"naive": "fast", "framework": 1.0}},
])
def test_a_malformed_event_keeps_nothing(exercise, sizes):
    assert {b.name for b in exercise.benchmark.baselines} == {"naive", "framework"}
    cache = BaselineCache()
    cache.store(exercise, {"key": KEY, "sizes": sizes})
    cache.store(exercise, {"key": 3, "sizes": {"0": {"naive": 1.0, "framework": 1.0}}})
    assert cache.known(exercise) == {}
    cache.store(exercise, {"key": KEY, "sizes": {"0": {"naive": None, "framework": 1.0}}})
    assert cache.known(exercise) == {KEY: {"0": {"naive": None, "framework": 1.0}}}


def test_the_same_lesson_loaded_twice_shares_its_times(scratch_exercise, exercise):
    cache = BaselineCache()
    cache.store(exercise, _event(exercise, {"0": [25.7, 0.0094]}))
    again = find_exercise("reduction.block_sum", scratch_exercise.parents[2])
    assert again is not exercise
    assert cache.known(again) == cache.known(exercise) != {}
    spec = scratch_exercise / "exercise.toml"
    spec.write_text(spec.read_text().replace("bench_s = 20", "bench_s = 30"))
    assert cache.known(find_exercise("reduction.block_sum", scratch_exercise.parents[2])) == {}
