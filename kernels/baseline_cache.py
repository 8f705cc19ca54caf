"""The supervisor's baseline times, kept between jobs for a while (#26).

A benchmark shows each size's time beside the exercise's baselines (the naive
kernel, a library call). Timing the baselines again in every job cost more GPU
time than the learner's kernel (block_sum's reference on an H200: 0.83 s of the
benchmark's 1.0 s). So a job times them once, before any learner code runs in
its process (kernels/bench_run.py `baselines_first`), and the judge keeps them
here for later jobs of the same exercise, compile constants and sizes, for
`TTL_S`. Only times measured that way are kept: a kernel never shares a process
with the baselines whose times other learners are shown.

Keyed by the exercise's benchmark as it is now (its sizes, baselines, their
sources and the trusted reference.py): an edited lesson starts afresh.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any, Callable

from kernels.spec import Exercise

TTL_S = 600.0  # the GPU's clocks and neighbours drift; ten minutes of a class share one measurement


def fingerprint(exercise: Exercise) -> str:
    """What the baselines' times depend on in the exercise folder."""
    assert exercise.benchmark is not None
    digest = hashlib.sha256(exercise.id.encode())
    # the spec (sizes, baselines and their launches, limits: each measurement's time cap),
    # the baselines' sources and reference.py (inputs, the library baselines)
    paths = [b.source for b in exercise.benchmark.baselines if b.source is not None]
    for path in [exercise.spec_path, *paths, exercise.reference_py_path]:
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"missing")
    return digest.hexdigest()


class BaselineCache:
    def __init__(self, ttl_s: float = TTL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        # (fingerprint, constants key, size index) -> (stored at, {baseline: ms or None})
        self._times: dict[tuple[str, str, str], tuple[float, dict[str, float | None]]] = {}

    def known(self, exercise: Exercise) -> dict[str, dict[str, dict[str, float | None]]]:
        """For the job: {constants key: {size index: {baseline: ms}}}, fresh entries only."""
        if exercise.benchmark is None:
            return {}
        mark, now = fingerprint(exercise), self._clock()
        found: dict[str, dict[str, dict[str, float | None]]] = {}
        for (print_, key, index), (at, times) in list(self._times.items()):
            if now - at > self.ttl_s:
                del self._times[(print_, key, index)]
            elif print_ == mark:
                found.setdefault(key, {})[index] = dict(times)
        return found

    def store(self, exercise: Exercise, event: dict[str, Any]) -> None:
        """Keep a `_baselines` event's times (a job sends it before running learner code)."""
        if exercise.benchmark is None:
            return
        names = {b.name for b in exercise.benchmark.baselines}
        key, sizes = event.get("key"), event.get("sizes")
        if not isinstance(key, str) or not isinstance(sizes, dict):
            return
        mark, now = fingerprint(exercise), self._clock()
        for index, times in sizes.items():
            if not isinstance(times, dict) or set(times) != names:
                continue
            if all(t is None or (isinstance(t, (int, float)) and t > 0) for t in times.values()):
                self._times[(mark, key, str(index))] = (now, dict(times))
