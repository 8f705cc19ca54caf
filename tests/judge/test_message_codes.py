"""Message codes (issue #13): every judge message a learner sees carries a code and its
parameters next to the English text, so the web can say it in the reader's language."""

from __future__ import annotations

import numpy as np
import pytest

from kernels import contract as result
from kernels.check import check_unchanged, compare
from kernels.contract import Message

from .conftest import BLOCK_SUM


def test_a_message_is_a_string_with_a_known_code() -> None:
    msg = Message("all 3 tests passed", "all_passed", total=3)
    assert msg == "all 3 tests passed" and msg.code == "all_passed" and msg.params == {"total": 3}
    with pytest.raises(ValueError):
        Message("x", "no_such_code")


def test_compare_and_unchanged_give_codes_with_their_numbers() -> None:
    got = np.array([1.0, 2.0, 5.0, 9.0], dtype=np.float32)
    msg = compare("out", got, np.array([1.0, 2.0, 3.0, 4.0]), "float32", 1e-5, 1e-5)
    assert msg.code == "mismatch"
    assert msg.params == {"where": "out[2]", "expected": "3", "got": "5", "count": 2, "size": 4,
                          "never_written": 0}
    changed = check_unchanged("a", np.zeros(4), np.array([0.0, 1.0, 0.0, 1.0]))
    assert changed.code == "input_modified" and changed.params == {"name": "a", "count": 2, "first": 1}


def test_the_validator_refuses_unknown_codes_and_wrong_params() -> None:
    doc = result.build(exercise="x.y", backend="emu", verdict="accepted",
                       message=Message("all 2 tests passed", "all_passed", total=2))
    assert doc["message_code"] == "all_passed" and doc["message_params"] == {"total": 2}
    assert result.validate(doc) == []
    assert result.validate(doc | {"message_code": "made_up"})
    assert result.validate(doc | {"message_params": {"total": 2, "extra": 1}})
    plain = result.build(exercise="x.y", backend="emu", verdict="accepted", message="ok")
    assert "message_code" not in plain and result.validate(plain) == []


@pytest.mark.skipif(not __import__("kernels.targets", fromlist=["x"]).emu_available()[0],
                    reason="emulator backend not available")
def test_a_wrong_kernel_judged_end_to_end_carries_codes(scratch_exercise) -> None:
    from kernels.judge import Judge

    events: list[dict] = []
    with Judge(scratch_exercise.parents[2], backend="emu") as judge:
        doc = judge.run((BLOCK_SUM / "solutions" / "wrong" / "first_block_only.cu").read_text(),
                        "reduction.block_sum", bench=False, on_event=events.append)
    assert result.validate(doc) == []
    # each case is announced as it starts; the verdict comes before "done" (#13)
    stages = [e["stage"] for e in events]
    assert stages.count("test_start") == stages.count("testing") == len(doc["tests"])
    assert stages.index("test_start") < stages.index("testing")
    tested = next(e for e in events if e["stage"] == "tested")
    assert stages.index("tested") < stages.index("done")
    assert tested["verdict"] == "wrong_answer" and tested["message_code"] == "tests_failed"
    assert tested["benchmark_follows"] is False
    assert doc["verdict"] == "wrong_answer" and doc["message_code"] == "tests_failed"
    params = doc["message_params"]
    assert params["total"] == len(doc["tests"]) and params["failed"] >= 1
    first = next(t for t in doc["tests"] if t["name"] == params["case"])
    assert first["status"] == "fail" and first["message_code"] == "mismatch"
    assert doc["message"].endswith(first["message"])
