"""Warm spare job processes for one `Judge` (#26).

A job process warms in two phases (kernels/worker.py): what launches nothing on
the GPU (imports, the CUDA context), then its GPU phase (cupy's kernels, the L2
flush buffer, a first module load, the shared-memory poison). What must not overlap is a spare's GPU phase and a
job's timed calls, so on a GPU:

- a spare is started without its GPU phase; it imports beside the jobs and
  says so (`_preloaded`);
- a spare is asked for its GPU phase only while no job is timed: when a job
  ends (`job_ended`), and when a job is taken and no other spare is ready or
  warming (its GPU phase then runs beside that job's compile and tests);
- the job waits at its benchmark's gate (kernels/worker.py) until `settle()`
  has seen every spare that was asked through its GPU phase; a spare still
  importing is not waited for, and is not asked until the job has ended.

The judge keeps `size` spares (3 on a GPU): a back-to-back burst takes one a
job, and a new one needs its imports (~1.1 s on an H200 machine) and a job's
end before it can warm.

On the emulator one spare starts when a job ends (a job there keeps every
core busy; docs/judge.md "Isolation").
"""

from __future__ import annotations

from typing import Callable

from kernels.sandbox import JobProcess

SETTLE_TIMEOUT_S = 30.0  # a spare's GPU phase takes well under a second; past this it is ignored


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
        """Start spares up to the pool's size; `warm`: ask every spare for its GPU phase
        (only when no job is timed: at start-up, or on the emulator)."""
        while len(self._spares) < self.size:
            self._spares.append(self._start())
        if warm:
            for spare in self._spares:
                spare.request_warm()

    def take(self) -> JobProcess:
        """The spare furthest along (warm, warming, imported, the oldest), else a new
        process; then the pool is topped up. On a GPU, when no spare left is warm or
        warming, one that has imported is asked for its GPU phase now: it runs beside
        the taken job's compile and tests, and the job's gate waits for it."""
        for spare in self._spares:
            spare.poll()
        live = [s for s in self._spares if not s.lost] or self._spares
        ranked = sorted(live, key=lambda s: (not s.ready, not s.warm_requested, not s.preloaded))
        job = ranked[0] if ranked else None
        if job is None:
            job = self._start()
        else:
            self._spares.remove(job)
        if self.warm_beside_jobs:
            self.fill(warm=False)
            if not any(s.ready or s.warm_requested for s in self._spares):
                self._warm_imported(limit=1)
        return job

    def job_ended(self) -> None:
        """A job has ended: nothing is timed until the next job's gate. Top up, and ask
        every spare that has imported for its GPU phase (on the emulator: the spare
        starts and warms now)."""
        if not self.warm_beside_jobs:
            self.fill(warm=True)
            return
        self.fill(warm=False)
        self._warm_imported()

    def _warm_imported(self, limit: int | None = None) -> None:
        asked = 0
        for spare in self._spares:
            if limit is not None and asked >= limit:
                return
            spare.poll()
            if spare.preloaded and not spare.warm_requested and not spare.lost:
                spare.request_warm()
                asked += 1

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
