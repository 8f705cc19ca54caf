"""The compile step's answer is untrusted: whatever it says, the parser gives a typed build,
a learner's diagnostic or Malformed (then `rejected`), never anything else (#29)."""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernels.messages import MESSAGE_CODES, Message
from kernels.triton.compile import MAX_GRID, MAX_PTXAS_CHARS, MAX_SHARED_BYTES, Malformed, TritonBuild, parse_answer

REQUEST: dict[str, Any] = {
    "source": "submission.py", "target": "sm_90",
    "launches": [{"kernel": "saxpy", "args": 4, "names": "x, y, a, N"}],
    "cases": [{"values": {"N": 1, "a": 2.0}, "types": [["*fp32", "*fp32", "fp32", "i32"]],
               "divisible": [[False, False, False, False]]},
              {"values": {"N": 70000, "a": 2.0}, "types": [["*fp32", "*fp32", "fp32", "i32"]],
               "divisible": [[False, False, False, True]]}],
    "max_binaries": 32, "workers": 2,
}
CUBIN = base64.b64encode(b"\x7fELF" + bytes(60)).decode()


def binary(key: str, block: int, divisible: bool = False) -> dict[str, Any]:
    return {"key": key, "kernel": "saxpy", "name": "saxpy", "signature": ["*fp32", "*fp32", "fp32", "i32"],
            "divisible": [False, False, False, divisible],
            "meta": {"BLOCK": block}, "num_warps": 4, "num_stages": 3, "shared": 0, "params": 6,
            "global_scratch_size": 0, "global_scratch_align": 1, "profile_scratch_size": 0,
            "profile_scratch_align": 1, "cubin": CUBIN, "ptxas": ""}


VALID: dict[str, Any] = {
    "triton": "3.6.0", "target": "sm_90", "binaries": [binary("b0", 256), binary("b1", 1024, divisible=True)],
    "cases": [[{"binary": "b0", "grid": [1, 1, 1]}], [{"binary": "b1", "grid": [69, 1, 1]}]],
}
ERROR = {"error": {"kind": "launch_num_warps", "line": 3, "column": 0, "message": "3", "name": "saxpy"}}
LINES = 20

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70) | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12)


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += paths(item, prefix + (index,))
    return out


def judged(doc: Any) -> None:
    """Parse `doc`; check that whatever comes back is sound."""
    raw = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    try:
        result = parse_answer(raw, REQUEST, LINES)
    except Malformed:
        return
    assert result.language == "triton"
    if result.ok:
        build = result.artifact
        assert isinstance(build, TritonBuild) and build.binaries and len(build.plans) == len(REQUEST["cases"])
        for b in build.binaries:
            assert b.cubin[:4] == b"\x7fELF" and 0 <= b.shared <= MAX_SHARED_BYTES and b.num_warps in (1, 2, 4, 8, 16, 32)
            assert b.signature == ("*fp32", "*fp32", "fp32", "i32") and 4 <= b.params <= 6
            assert type(b.ptxas_log) is str and len(b.ptxas_log) <= MAX_PTXAS_CHARS
        for _, plan in build.plans:
            for step in plan:
                assert all(1 <= g <= limit for g, limit in zip(step.grid, MAX_GRID))
                assert build.binary(step.binary).kernel == "saxpy"
    else:
        assert result.status in ("compile_error", "rejected")
        [diagnostic] = result.diagnostics
        assert isinstance(diagnostic.message, Message) and diagnostic.message.code in MESSAGE_CODES
        assert set(diagnostic.message.params) == set(MESSAGE_CODES[diagnostic.message.code])
        assert 0 <= diagnostic.line <= LINES and len(diagnostic.message) < 3000


def test_the_valid_answer_and_error_parse() -> None:
    result = parse_answer(json.dumps(VALID).encode(), REQUEST, LINES)
    assert result.ok and [b.key for b in result.artifact.binaries] == ["b0", "b1"]
    assert result.artifact.plan_for({"N": 70000, "a": 2.0})[0].grid == (69, 1, 1)
    error = parse_answer(json.dumps(ERROR).encode(), REQUEST, LINES)
    assert error.status == "compile_error" and error.diagnostics[0].line == 3
    assert error.diagnostics[0].message.code == "triton_launch_num_warps"


def test_a_binary_runs_only_where_its_divisibility_holds() -> None:
    # N = 70000 is a multiple of 16: its binary is compiled so, N = 1's is not; an answer
    # that swaps them (a vectorised binary on a size it would overrun) is refused
    result = parse_answer(json.dumps(VALID).encode(), REQUEST, LINES)
    assert result.artifact.binary("b1").divisible == (False, False, False, True)
    assert result.artifact.binary("b0").divisible == (False, False, False, False)
    swapped = copy.deepcopy(VALID)
    swapped["cases"] = [[{"binary": "b1", "grid": [1, 1, 1]}], [{"binary": "b0", "grid": [69, 1, 1]}]]
    with pytest.raises(Malformed):
        parse_answer(json.dumps(swapped).encode(), REQUEST, LINES)
    for flags in ([False, False, False], [True, False, False, True], [False, False, False, 1], None):
        doc = copy.deepcopy(VALID)  # a pointer's flag, a wrong length, a non-bool
        doc["binaries"][1]["divisible"] = flags
        with pytest.raises(Malformed):
            parse_answer(json.dumps(doc).encode(), REQUEST, LINES)


def test_ptxas_report_is_text_of_bounded_size() -> None:
    # the profiler reads registers and shared memory from it (kernels/profile/run.py triton_resources)
    report = "ptxas info    : Used 22 registers, used 0 barriers"
    doc = copy.deepcopy(VALID)
    doc["binaries"][0]["ptxas"] = report
    assert parse_answer(json.dumps(doc).encode(), REQUEST, LINES).artifact.binary("b0").ptxas_log == report
    for value in (22, None, ["ptxas"], "x" * (MAX_PTXAS_CHARS + 1)):
        doc["binaries"][0]["ptxas"] = value
        with pytest.raises(Malformed):
            parse_answer(json.dumps(doc).encode(), REQUEST, LINES)
    del doc["binaries"][0]["ptxas"]
    with pytest.raises(Malformed):
        parse_answer(json.dumps(doc).encode(), REQUEST, LINES)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.one_of(json_values, st.binary(max_size=64)))
def test_arbitrary_answers(doc: Any) -> None:
    judged(doc)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(paths(VALID)), json_values, st.booleans())
def test_one_field_of_a_valid_answer_changed(path: tuple, value: Any, delete: bool) -> None:
    doc = copy.deepcopy(VALID)
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    judged(doc)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(paths(ERROR)), json_values)
def test_one_field_of_an_error_changed(path: tuple, value: Any) -> None:
    doc = copy.deepcopy(ERROR)
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    judged(doc)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.fixed_dictionaries({
    "kind": st.sampled_from(["syntax", "import", "missing_kernel", "not_jit", "kernel_params", "missing_launch",
                             "launch_unknown_arg", "launch_raised", "launch_not_dict", "launch_bad_grid",
                             "launch_num_stages", "launch_unknown_key", "launch_tuned_key", "launch_bad_meta", "launch_missing_meta",
                             "triton", "compile", "too_many_binaries", "interfered", "other"]),
    "line": st.integers(-5, 10**8), "column": st.integers(-5, 10**8), "message": st.text(max_size=3000)},
    optional={"name": st.sampled_from(["saxpy", "other", ""]), "want": st.integers(0, 8),
              "got": st.integers(-1, 8), "arg": st.text(max_size=120), "key": st.text(max_size=120)}))
def test_every_error_kind(error: dict) -> None:
    judged({"error": error})


def test_a_coded_diagnostic_reaches_the_result_document() -> None:
    from kernels.contract import build, validate

    error = parse_answer(json.dumps(ERROR).encode(), REQUEST, LINES)
    doc = build(exercise="elementwise.saxpy", backend="cuda", verdict="compile_error", message="compilation failed",
                compile_=error.to_dict())
    assert validate(doc) == []
    [diagnostic] = doc["compile"]["diagnostics"]
    assert diagnostic["message_code"] == "triton_launch_num_warps"
    assert diagnostic["message_params"] == {"launcher": "launch_saxpy", "value": "3"}
    assert type(diagnostic["message"]) is str
