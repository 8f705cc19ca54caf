import json

import pytest

from kernels import contract as result


def _doc(**overrides):
    base = dict(exercise="reduction.block_sum", backend="cuda", verdict="accepted",
                message="all 13 tests passed",
                tests=[{"name": "n=1", "status": "pass", "message": "", "output": ""}],
                timings={"compile_s": 0.04, "test_s": 0.2})
    base.update(overrides)
    return result.build(**base)


def test_built_document_is_valid_v1():
    doc = _doc()
    assert result.validate(doc) == []
    assert doc["version"] == 1
    assert doc["benchmark"] is None
    assert doc["timings"] == {"queued_s": 0.0, "compile_s": 0.04, "test_s": 0.2, "bench_s": 0.0, "total_s": 0.0}
    assert set(doc["device"]) == {"name", "sm_clock_mhz", "temp_c"}
    json.dumps(doc)  # serialisable as it is


def test_timings_note_only_when_given():
    assert "timings_note" not in _doc()
    assert _doc(backend="emu", timings_note="not representative")["timings_note"] == "not representative"


def test_unknown_verdict_is_refused():
    with pytest.raises(ValueError):
        _doc(verdict="great")


@pytest.mark.parametrize("mutate, problem", [
    (lambda d: d.pop("verdict"), "missing keys: verdict"),
    (lambda d: d.update(verdict="ok"), "bad verdict"),
    (lambda d: d.update(version=2), "version must be 1"),
    (lambda d: d.update(extra=1), "unknown keys: extra"),
    (lambda d: d["tests"].append({"name": "x", "status": "maybe", "message": "", "output": ""}),
     "tests[1] malformed"),
    (lambda d: d.update(benchmark={"sizes": [{"n": 1}], "geomean_ms": 1.0, "peak_gbps": 1.0}),
     "benchmark.sizes[0] needs"),
    (lambda d: d["compile"]["diagnostics"].append({"line": 1}), "compile diagnostics need"),
])
def test_validator_finds_problems(mutate, problem):
    doc = _doc()
    mutate(doc)
    assert any(problem in e for e in result.validate(doc)), result.validate(doc)
