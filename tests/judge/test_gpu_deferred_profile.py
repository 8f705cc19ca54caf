"""On a GPU the ncu profile comes after the result, and a verdict preempts it (#26)."""

from __future__ import annotations

import threading
import time

import pytest

from kernels import contract as result

from .conftest import BLOCK_SUM, REPO

pytestmark = pytest.mark.gpu
EXERCISE = "reduction.block_sum"


def test_a_deferred_profile_comes_after_the_result_and_a_verdict_preempts_it():
    from kernels.judge import GPU_SPARES, Judge

    source = (BLOCK_SUM / "reference.cu").read_text()
    with Judge(REPO / "lessons", backend="cuda", defer_profile=True) as judge:
        assert judge.wait_ready(120) and len(judge.spares) == GPU_SPARES
        doc = judge.run(source, EXERCISE, bench=True, max_bench_sizes=1)
        assert doc["verdict"] == "accepted" and result.validate(doc) == []
        assert "profile" not in doc and doc["benchmark"]["geomean_ms"] > 0
        if not judge.wants_profile(doc):
            pytest.skip("no ncu on this machine: nothing is deferred")
        judge.wait_ready(120)  # idle
        started = time.monotonic()
        found = judge.profile(source, EXERCISE, doc["benchmark"])
        assert found is not None and found["source"] == "ncu"
        assert time.monotonic() - started < 10  # delivered within 10 s of the result when idle

        box: dict = {}
        worker = threading.Thread(target=lambda: box.update(profile=judge.profile(source, EXERCISE)))
        worker.start()
        time.sleep(1.0)  # the profile job is compiling or under ncu
        started = time.monotonic()
        verdict = judge.run(source, EXERCISE, bench=False)
        verdict_s = time.monotonic() - started
        worker.join(60)
        assert verdict["verdict"] == "accepted"
        assert box == {"profile": None}  # stopped, to be made again later
        assert verdict_s < 3.0, verdict_s
