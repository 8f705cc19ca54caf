"""A job process killed by someone else is our fault: the submission is judged again (#11).

The test plays the OOM killer / an operator: it SIGKILLs the job process
mid-judge through the Judge's own handle (`judge.current_job`), from the
event callback, which runs in the judge's thread while the case runs.
"""

from __future__ import annotations

import logging
import os
import signal

import pytest

from kernels import contract as result

from .judge_support import CORRECT_SOURCE, backends, lessons, live_members  # noqa: F401 (fixture)


class Killer:
    """An on_event callback that SIGKILLs the job process as case `index` starts."""

    def __init__(self, judge, index: int, times: int) -> None:
        self.judge, self.index, self.times = judge, index, times
        self.killed: list = []

    def __call__(self, event: dict) -> None:
        if event["stage"] == "test_start" and event["index"] == self.index and len(self.killed) < self.times:
            job = self.judge.current_job
            os.kill(job.proc.pid, signal.SIGKILL)
            self.killed.append(job)


def _gone(job) -> bool:
    return live_members(job.proc.pid) == []


@pytest.mark.parametrize("backend", backends())
def test_a_correct_kernel_keeps_its_verdict_when_its_job_process_is_killed(lessons, caplog, backend):
    from kernels.judge import Judge

    with Judge(lessons, backend=backend) as judge, caplog.at_level(logging.ERROR, logger="kernels.judge"):
        assert judge.wait_ready(120)
        killer = Killer(judge, index=2, times=1)
        doc = judge.run(CORRECT_SOURCE, "reduction.block_sum", bench=False, on_event=killer)
        assert len(killer.killed) == 1 and judge.current_job is not killer.killed[0]
        assert doc["verdict"] == "accepted", doc["message"]
        assert len(doc["tests"]) == 13 and all(t["status"] == "pass" for t in doc["tests"])
        assert result.validate(doc) == []
        lost = [r.getMessage() for r in caplog.records if "job process lost" in r.getMessage()]
        assert len(lost) == 1 and "attempt 1 of 2" in lost[0] and "SIGKILL: in testing" in lost[0]
        assert killer.killed[0].wait(10) is not None and _gone(killer.killed[0])
        # the judge is healthy afterwards: the next submission is judged normally
        assert judge.run(CORRECT_SOURCE, "reduction.block_sum", bench=False)["verdict"] == "accepted"


@pytest.mark.parametrize("backend", backends())
def test_a_job_killed_on_every_attempt_is_internal_error_never_the_learners_fault(lessons, backend):
    from kernels.judge import Judge

    with Judge(lessons, backend=backend) as judge:
        killer = Killer(judge, index=0, times=2)
        doc = judge.run(CORRECT_SOURCE, "reduction.block_sum", bench=False, on_event=killer)
        assert len(killer.killed) == 2
        assert doc["verdict"] == "internal_error"  # not runtime_error, not memory_limit_exceeded
        assert doc["message"].startswith("the judge lost its job process 2 times (last: SIGKILL); "
                                         "not your fault")
        assert doc["message_code"] == "internal" and result.validate(doc) == []
        assert all(job.wait(10) is not None and _gone(job) for job in killer.killed)
        assert judge.run(CORRECT_SOURCE, "reduction.block_sum", bench=False)["verdict"] == "accepted"


def test_the_emulators_own_sentence_reaches_the_learner_on_internal_error():
    # kernels/emu/target.py raises RuntimeError("emulator: …") when its program was
    # killed twice by someone else; the worker reports the traceback, the judge the sentence
    from kernels.judge import INTERNAL_MESSAGE, _internal_sentence

    traceback = ("Traceback (most recent call last):\n  File \"kernels/emu/target.py\", line 160, in run\n"
                 "RuntimeError: emulator: the emulated program was killed by a signal the judge did not "
                 "send (the machine's out-of-memory killer, or an operator) (twice)\n")
    sentence = _internal_sentence(traceback)
    assert sentence.startswith("the judge failed on our side (not your fault): the emulated program was killed")
    assert sentence.endswith("(twice); the operators have a log line")
    assert _internal_sentence("Traceback …\nKeyError: 'N'\n") == INTERNAL_MESSAGE
