"""Warm spare job processes for one `Judge` (#26).

On a GPU the judge keeps `size` spares (2 by default), so a back-to-back
submission finds one warm: the spare started while the previous job ran
warms fully (imports, then its GPU phase) beside that job's compile and tests.
What must not overlap is a spare's GPU phase and a job's timed calls; the job
therefore waits at its benchmark's gate (kernels/worker.py) until
`settle()` has seen every spare through its GPU phase.

On the emulator one spare starts when a job ends (a job there keeps every
core busy; docs/judge.md "Isolation").
"""

from __future__ import annotations

from typing import Callable

from kernels.sandbox import JobProcess

SETTLE_TIMEOUT_S = 30.0  # a spare's GPU phase takes about a second; past this it is ignored


class SparePool:
    def __init__(self, start: Callable[[], JobProcess], size: int, warm_beside_jobs: bool) -> None:
        self._start = start
        self.size = max(0, size)
        self.warm_beside_jobs = warm_beside_jobs
        self._spares: list[JobProcess] = []

    @property
    def spares(self) -> list[JobProcess]:
        return list(self._spares)

    def fill(self, warm: bool) -> None:
        """Start spares up to the pool's size; `warm`: ask for their GPU phase too."""
        while len(self._spares) < self.size:
            self._spares.append(self._start())
        if warm:
            for spare in self._spares:
                spare.request_warm()

    def take(self) -> JobProcess:
        """A warm spare if one is, else the oldest, else a new process; then the pool is
        topped up (on a GPU the new spares warm fully now: the gate keeps them off the
        timed calls)."""
        ready = [s for s in self._spares if s.ready]
        job = (ready or self._spares or [None])[0]
        if job is None:
            job = self._start()
        else:
            self._spares.remove(job)
        if self.warm_beside_jobs:
            self.fill(warm=True)
        return job

    def settle(self) -> None:
        """Return once no spare is in its GPU phase (each is warm, dead, or not asked to warm)."""
        for spare in self._spares:
            if spare.warm_requested and not spare.ready:
                spare.wait_ready(SETTLE_TIMEOUT_S)

    def wait_ready(self, timeout_s: float) -> bool:
        return bool(self._spares) and all(s.wait_ready(timeout_s) for s in self._spares)

    def close(self) -> None:
        spares, self._spares = self._spares, []
        for spare in spares:
            spare.close()
