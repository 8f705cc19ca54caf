"""A wall budget for all of a submission's tests, beside each case's run_s (#11).

A kernel that takes a while in every case passes each case's limit but not the
budget: it ends as time_limit_exceeded when the budget is spent, with the real
elapsed time in the message, not accepted minutes later.
"""

from __future__ import annotations

import re
import time

import pytest

from kernels import contract as result

from .judge_support import CORRECT_SOURCE, backends, lessons  # noqa: F401 (fixture)

SPIN = {  # about a second per case in one thread, then the correct sum
    "emu": "volatile unsigned long long sink = 0;\n"
           "        for (unsigned long long k = 0; k < 1000000000ull; ++k) sink = sink + k;",
    "cuda": "long long start = clock64(); while (clock64() - start < 2000000000LL) { }",
}


def slow_source(backend: str) -> str:
    return CORRECT_SOURCE.replace(
        "    extern __shared__ float warp_sums[];",
        "    extern __shared__ float warp_sums[];\n"
        f"    if (blockIdx.x == 0 && threadIdx.x == 0) {{\n        {SPIN[backend]}\n    }}", 1)


@pytest.mark.parametrize("backend", backends())
def test_a_kernel_slow_in_every_case_is_stopped_at_the_tests_budget(lessons, backend):
    from kernels.judge import Judge

    assert slow_source(backend) != CORRECT_SOURCE
    budget_s = 4.0
    with Judge(lessons, backend=backend, tests_budget_s=budget_s) as judge:
        assert judge.wait_ready(120)
        started = time.monotonic()
        doc = judge.run(slow_source(backend), "reduction.block_sum", bench=False)
        elapsed = time.monotonic() - started
        after = judge.run(CORRECT_SOURCE, "reduction.block_sum", bench=False)
    assert doc["verdict"] == "time_limit_exceeded", doc["message"]
    last = doc["tests"][-1]
    assert last["status"] == "error" and len(doc["tests"]) < 13
    match = re.search(r"the tests ran past their 4 s budget \(stopped after (\d+\.\d) s of tests, "
                      r"(\d+\.\d) s into this case\)", last["message"])
    assert match, last["message"]
    assert budget_s <= float(match[1]) < budget_s + 1
    assert last["message_code"] == "time_limit" and last["message_params"] == {"seconds": budget_s}
    assert elapsed < doc["compile"]["seconds"] + budget_s + 10
    assert result.validate(doc) == []
    assert after["verdict"] == "accepted"


def test_the_budget_comes_from_the_environment(monkeypatch):
    from kernels.judge import DEFAULT_TESTS_BUDGET_S, tests_budget_from_env

    monkeypatch.delenv("KDOJO_TESTS_BUDGET_S", raising=False)
    # per backend: a stalling kernel stops, compile included, within 20 s of wall time
    assert tests_budget_from_env("emu") == DEFAULT_TESTS_BUDGET_S["emu"] == 15.0
    assert tests_budget_from_env("cuda") == DEFAULT_TESTS_BUDGET_S["cuda"] == 10.0
    monkeypatch.setenv("KDOJO_TESTS_BUDGET_S", "12.5")
    assert tests_budget_from_env("emu") == tests_budget_from_env("cuda") == 12.5
    for bad in ("soon", "0", "-3"):
        monkeypatch.setenv("KDOJO_TESTS_BUDGET_S", bad)
        with pytest.raises(ValueError, match="KDOJO_TESTS_BUDGET_S"):
            tests_budget_from_env()
