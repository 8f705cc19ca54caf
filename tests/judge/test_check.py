"""The checks every backend's results go through, on host arrays."""

import numpy as np
import pytest

from kernels.targets.base import GUARD_ELEMS
from kernels.buffers import from_float64, make_guarded, to_float64
from kernels.check import cap_output, check_case, check_guards, check_unchanged, compare, \
    reference_is_trivial


def test_sentinel_means_never_written():
    out = make_guarded("out", "out", "float32", (4,), "sentinel")
    message = compare("out", out.payload, np.ones(4), "float32", 1e-5, 1e-6)
    assert message == "out[0]: expected 1, got nan (never written); 4 of 4 element(s) differ"


def test_first_mismatch_expected_got_and_count():
    got = np.array([1.0, 2.0, 3.5, 4.0, 9.0], dtype=np.float32)
    want = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    assert compare("y", got, want, "float32", 1e-5, 1e-6) == \
        "y[2]: expected 3, got 3.5; 2 of 5 element(s) differ"


def test_multidimensional_index():
    got = np.zeros((2, 3), dtype=np.float32)
    want = np.zeros((2, 3))
    want[1, 2] = 1.0
    assert compare("y", got, want, "float32", 0, 0).startswith("y[1, 2]: expected 1, got 0")


def test_tolerance_is_atol_times_scale_plus_rtol():
    want = np.array([1000.0])
    assert compare("o", np.array([1000.009], np.float64), want, "float64", 1e-5, 0.0) is None
    assert compare("o", np.array([1000.02], np.float64), want, "float64", 1e-5, 0.0) is not None
    assert compare("o", np.array([1000.02], np.float64), want, "float64", 1e-5, 1e-6, 1e4) is None


@pytest.mark.parametrize("got, want, ok", [
    (np.nan, np.nan, True),
    (np.nan, 1.0, False),
    (1.0, np.nan, False),
    (np.inf, np.inf, True),
    (-np.inf, np.inf, False),
    (np.inf, 1e30, False),
    (1e30, np.inf, False),
])
def test_nan_and_inf_are_explicit(got, want, ok):
    result = compare("o", np.array([got]), np.array([want]), "float64", 1e-3, 1e-3)
    assert (result is None) is ok


def test_guards_catch_writes_on_both_sides():
    buf = make_guarded("out", "out", "float32", (10,), "sentinel")
    assert check_guards(buf, "float32") is None
    buf.full[GUARD_ELEMS + 10 + 3] = 0.0
    buf.full[GUARD_ELEMS - 1] = 1.0
    message = check_guards(buf, "float32")
    assert message == ("wrote outside buffer 'out': 1 element(s) before the start (first at index -1), "
                       "1 element(s) past the end (first at index 13)")


def test_guard_value_breaks_sums_read_out_of_bounds():
    buf = make_guarded("in", "in", "float32", (3,), "sentinel", data=np.ones(3))
    assert buf.full[GUARD_ELEMS + 3] == 7777.0


def test_unchanged_inputs_bitwise():
    before = np.array([1.0, -0.0, np.nan], dtype=np.float32)
    after = before.copy()
    assert check_unchanged("in", before, after) is None
    after[1] = 0.0  # +0 vs -0: a write, even if equal as numbers
    assert "input 'in' was modified: 1 element(s) changed (first at index 1)" in \
        check_unchanged("in", before, after)


def test_zero_references_are_trivial():
    assert reference_is_trivial(np.zeros(4), 1e-6)
    assert reference_is_trivial(np.full(4, 1e-9), 1e-6)
    assert not reference_is_trivial(np.array([0.0, 1.0]), 1e-6)


def _case(write):
    inputs = {"in": np.arange(1, 5, dtype=np.float32)}
    bufs = {"in": make_guarded("in", "in", "float32", (4,), "sentinel", inputs["in"]),
            "out": make_guarded("out", "out", "float32", (1,), "zeros")}
    write(bufs)
    return check_case("n=4", bufs, {"in": inputs["in"].copy()}, {"out": np.array([10.0])},
                      {"in": "float32", "out": "float32"}, 1e-5, 1e-6, output="hello\n")


def test_check_case_pass_and_order_of_messages():
    def correct(b):
        b["out"].payload[0] = 10.0
    assert _case(correct).status == "pass"

    def writes_zero(b):
        b["out"].payload[0] = 0.0
    assert _case(writes_zero).message == "out[0]: expected 10, got 0; 1 of 1 element(s) differ"

    def overruns_and_wrong(b):
        b["out"].payload[0] = 1.0
        b["out"].full[GUARD_ELEMS + 1] = 10.0
    assert _case(overruns_and_wrong).message.startswith("wrote outside buffer 'out'")

    def modifies_input(b):
        b["out"].payload[0] = 10.0
        b["in"].payload[0] = 0.0
    result = _case(modifies_input)
    assert result.status == "fail" and "input 'in' was modified" in result.message
    assert result.to_dict()["output"] == "hello\n"


def test_output_is_capped():
    assert cap_output("x" * 600).endswith("(100 more characters not shown)")
    assert cap_output("short") == "short"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int32", "uint32", "int64"])
def test_guards_and_sentinels_for_every_dtype(dtype):
    buf = make_guarded("o", "out", dtype, (5,), "sentinel")
    assert check_guards(buf, dtype) is None
    message = compare("o", buf.payload, np.full(5, 3.0), dtype, 0.0, 0.0)
    assert "(never written)" in message


def test_bfloat16_round_trip():
    values = np.array([1.0, -2.5, 3.140625])
    assert np.array_equal(to_float64(from_float64(values, "bfloat16"), "bfloat16"), values)
