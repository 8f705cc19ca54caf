"""A class at once against a real `kdojo serve` (issue #25): 60 signed-in learners
load a lesson, post, submit and follow their verdicts over SSE, all at the same
moment; then no 5xx, no submission lost or stored twice, every verdict right.

Not a timing test: bench/class_load.py measures. To stay well under a minute on
a small CI machine, one learner in twenty submits the correct block_sum (accepted)
and the others a source the judge turns down at once (rejected: a forbidden
include), so the whole pipeline (queue, claim, judge process, events, verdict,
SSE) runs for everyone and the emulator's tests for a few.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

import pytest

from app.settings import REPO_ROOT
from tests.web.conftest import BLOCK_SUM, EXERCISE
from tests.web.live_server import free_port
from tests.web.test_scaleout import PG_SERVER, REDIS_URL, _reachable

_spec = importlib.util.spec_from_file_location("class_load", REPO_ROOT / "bench" / "class_load.py")
class_load = sys.modules["class_load"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(class_load)  # the benchmark's own scenario, not a copy of it

LEARNERS = 60
CORRECT = (BLOCK_SUM / "solutions" / "correct" / "shared_tree.cu").read_text()
FORBIDDEN = '#include "/etc/passwd"\n'  # turned down by the judge's include policy, before any compiler


def _sources() -> tuple[list[str], list[str]]:
    sources = [CORRECT if i % 20 == 0 else FORBIDDEN for i in range(LEARNERS)]
    expected = ["accepted" if source is CORRECT else "rejected" for source in sources]
    return sources, expected


def _class_at_once(tmp_path: Path, lessons_dir: Path, scaleout: bool) -> None:
    sources, expected = _sources()
    with class_load.class_server(tmp_path, lessons_dir, free_port(), scaleout=scaleout,
                                 pg_server=PG_SERVER, redis_url=REDIS_URL) as server:
        tally, outcome, learners = asyncio.run(
            class_load.run_class(server, LEARNERS, "reduction", sources, EXERCISE))
        log = server.log.read_text()
    report = class_load.report(tally, outcome)
    assert tally.count_5xx() == 0, report
    assert tally.errors == [], report
    assert tally.statuses["page"] == {200: LEARNERS}, report
    assert tally.statuses["post"] == {200: 2 * LEARNERS}, report
    assert tally.statuses["submit"] == {202: LEARNERS}, report
    # the prober of its own answered throughout, every time
    assert set(tally.statuses[class_load.HEALTHZ_PROBE]) == {200}, report
    assert (outcome["submitted"], outcome["lost"], outcome["duplicated"]) == (LEARNERS, 0, 0), report
    assert [learner.verdict for learner in learners] == expected, report
    assert "Traceback" not in log, log[-3000:]


def test_a_class_at_once_on_sqlite(tmp_path, lessons_dir):
    _class_at_once(tmp_path, lessons_dir, scaleout=False)


@pytest.mark.scaleout
def test_a_class_at_once_on_postgresql_and_redis(tmp_path, lessons_dir):
    why = _reachable()
    if why:
        pytest.skip(why)
    _class_at_once(tmp_path, lessons_dir, scaleout=True)
