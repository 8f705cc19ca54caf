"""What the emulated program writes is parsed as untrusted data (#27).

Learner code can replace libc's `write` or `sigaction` and write any fault
report or answer itself. The parsers must never raise anything but the
ValueError the caller turns into the learner's runtime_error, and must never
return a field outside its range: fuzzed here with every field oversized,
negative, non-numeric, truncated or binary junk.
"""

from __future__ import annotations

import struct

from hypothesis import given, settings, strategies as st

from kernels.emu.process import _REPORT_FIELDS, _describe_exit, memory_report
from kernels.emu.protocol import decode_body

KEYS = sorted(_REPORT_FIELDS) + ["secret", "", "pc ", "PC"]
NUMERALS = st.one_of(
    st.integers(min_value=-(1 << 80), max_value=1 << 80).map(str),
    st.integers(min_value=-(1 << 80), max_value=1 << 80).map(lambda v: ("-" if v < 0 else "") + hex(abs(v))),
    st.text(alphabet="0123456789", min_size=19, max_size=6000),
    st.text(max_size=30),
    st.binary(max_size=30).map(lambda b: b.decode("latin-1")),
)
FIELD = st.tuples(st.sampled_from(KEYS), st.sampled_from(["=", "==", ":", ""]), NUMERALS).map("".join)


def _valid(fields: dict[str, int]) -> None:
    for key, value in fields.items():
        low, high = _REPORT_FIELDS[key]
        assert low <= value <= high, (key, value)


@settings(max_examples=400, deadline=None)
@given(st.lists(FIELD, max_size=12), st.text(max_size=50), st.booleans())
def test_a_fault_report_is_fields_in_range_or_nothing(items, noise, newline):
    text = noise + "\nKDOJO-MEMORY-FAULT " + " ".join(items) + ("\n" if newline else "")
    fields = memory_report(text)
    if fields is not None:
        _valid(fields)
        assert {"pc", "addr", "write", "kernel"} <= set(fields)


def test_the_runtimes_own_report_is_read():
    text = "\nKDOJO-MEMORY-FAULT pc=0x401a2b addr=0x7f00 write=1 kernel=1 buffer=0 element=-3\n"
    assert memory_report(text) == {"pc": 0x401A2B, "addr": 0x7F00, "write": 1, "kernel": 1, "buffer": 0,
                                   "element": -3}


def test_a_5000_digit_number_or_a_negative_hex_voids_the_report():
    assert memory_report("KDOJO-MEMORY-FAULT pc=" + "9" * 5000 + " addr=0x1 write=0 kernel=1\n") is None
    assert memory_report("KDOJO-MEMORY-FAULT pc=0x1 addr=-0x5 write=0 kernel=1\n") is None
    assert memory_report("KDOJO-MEMORY-FAULT pc=0x1 addr=0x1 write=0 kernel=1 buffer=5000\n") is None


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=2000))
def test_any_crash_stderr_is_described_without_raising(junk):
    crash = _describe_exit(-11, junk.decode("utf-8", errors="replace"))
    assert crash.kind == "runtime_error"
    if crash.memory is not None:
        _valid(crash.memory)


def _body(name: bytes, diag_count: int, diags: bytes, output: bytes, buffers: list[bytes], nbuf: int) -> bytes:
    out = struct.pack("<I", 1) + struct.pack("<I", len(name)) + name + struct.pack("<I", 0) + struct.pack("<iQ", -7, 1)
    out += struct.pack("<I", diag_count) + diags + struct.pack("<I", len(output)) + output
    out += struct.pack("<I", nbuf) + b"".join(struct.pack("<Q", len(b)) + b for b in buffers)
    return out


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=40), st.integers(0, (1 << 32) - 1), st.binary(max_size=200), st.binary(max_size=200),
       st.lists(st.binary(max_size=50), max_size=4), st.integers(0, (1 << 32) - 1), st.integers(0, 400))
def test_a_forged_answer_decodes_or_raises_value_error(name, count, diags, output, buffers, nbuf, cut):
    body = _body(name, count, diags, output, buffers, nbuf)
    for data in (body, body[:cut], body + b"\xff" * cut):
        try:
            decode_body(data)
        except ValueError:
            pass  # the caller's "output corrupted": the learner's runtime_error


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=30), st.integers(-(1 << 31), (1 << 31) - 1), st.integers(-(1 << 31), (1 << 31) - 1),
       st.sampled_from(["race", "out_of_bounds", "internal", "\x1b[2J"]), st.binary(max_size=3000))
def test_a_decoded_answer_is_checked_field_by_field(name, line, diag_line, kind, text):
    from kernels.emu.target import DIAGNOSTIC_KINDS, MAX_LINE, MAX_TEXT_CHARS, _checked
    from kernels.emu.protocol import WireBuffer

    diag = struct.pack("<I", len(kind.encode())) + kind.encode() + struct.pack("<iQ", diag_line, 1) \
        + struct.pack("<I", len(text)) + text
    body = (struct.pack("<I", 1) + struct.pack("<I", len(name)) + name + struct.pack("<I", len(text)) + text
            + struct.pack("<iQ", line, 1) + struct.pack("<I", 1) + diag + struct.pack("<I", 0)
            + struct.pack("<I", 1) + struct.pack("<Q", 4) + b"\0" * 4)
    checked = _checked(decode_body(body), [WireBuffer("out", b"\0" * 4, 0, 4, 4)])
    assert checked.fault_name != "internal" and len(checked.fault_message) <= MAX_TEXT_CHARS
    assert 0 <= checked.fault_line <= MAX_LINE
    for d in checked.diagnostics:
        assert d.kind in DIAGNOSTIC_KINDS and 0 <= d.line <= MAX_LINE and len(d.message) <= MAX_TEXT_CHARS
