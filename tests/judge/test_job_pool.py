"""The spare pool's rule on a GPU (#26): a spare imports beside the jobs, but is asked
for its GPU phase only while no job is timed, and the benchmark's gate waits only for
spares that were asked.

The pool is backend-blind: these run real `python -m kernels.worker` processes of the
emulator backend through a pool set up as on a GPU (`warm_beside_jobs=True`).
"""

from __future__ import annotations

import time

import pytest

from kernels.job_pool import SparePool
from kernels.sandbox import JobProcess
from kernels.targets import emu_available

from .conftest import LESSONS

pytestmark = pytest.mark.skipif(not emu_available()[0], reason="emulator backend not available")


def _until(condition, timeout_s: float = 90.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _imported(pool: SparePool) -> bool:
    for spare in pool.spares:
        spare.poll()
    return all(s.preloaded for s in pool.spares)


@pytest.fixture
def pool():
    made = SparePool(lambda: JobProcess("emu", LESSONS), size=2, warm_beside_jobs=True)
    yield made
    made.close()


def test_a_spare_imports_and_then_waits_to_be_asked(pool):
    pool.fill(warm=False)
    assert _until(lambda: _imported(pool))
    time.sleep(0.5)
    for spare in pool.spares:
        spare.poll()
        assert spare.preloaded and not spare.warm_requested and not spare.ready
        assert spare.proc.poll() is None  # alive, blocked on its stdin


def test_taking_a_job_warms_one_imported_spare_and_the_gate_waits_only_for_it(pool):
    pool.fill(warm=False)
    assert _until(lambda: _imported(pool))
    job = pool.take()
    try:
        assert job.preloaded and not job.ready
        spares = pool.spares
        assert len(spares) == 2
        old, new = spares  # the one left from before, and the one started by take()
        assert old.warm_requested and not new.warm_requested  # no spare was warm: one warms now
        pool.settle()
        assert old.ready  # the gate saw it through its GPU phase
        assert not new.warm_requested and not new.ready  # still importing or waiting: not asked, not waited for
    finally:
        job.close()


def test_a_job_end_warms_every_imported_spare_and_the_next_take_gets_a_warm_one(pool):
    pool.fill(warm=False)
    assert _until(lambda: _imported(pool))
    first = pool.take()
    first.close()
    assert _until(lambda: _imported(pool))
    pool.job_ended()
    assert all(s.warm_requested for s in pool.spares)
    pool.settle()
    assert all(s.ready for s in pool.spares)
    second = pool.take()
    try:
        assert second.ready
        # a warm spare is left: nothing more is asked to warm beside this job
        assert sum(s.warm_requested for s in pool.spares) == 1
    finally:
        second.close()


def test_a_spare_that_died_is_not_taken_while_a_live_one_is(pool):
    pool.fill(warm=False)
    assert _until(lambda: _imported(pool))
    dead, alive = pool.spares
    dead.kill()
    assert _until(lambda: (dead.poll(), dead.lost)[1], 10)
    job = pool.take()
    try:
        assert job is alive
    finally:
        job.close()
