"""Checking one case's results — the same code for every backend.

Public functions (all pure, host numpy arrays in, a message or None out):

- `check_guards(buffer)`            writes outside a buffer's payload
- `check_unchanged(name, before, after)`  an input that was modified
- `compare(name, got, want, ...)`   per-element tolerance, NaN/inf explicit,
                                    first mismatching index, expected vs got, count
- `check_case(...)`                 all of the above for one case → `TestResult`
- `reference_is_trivial(want, ...)` an expected output that zeros would match
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels.targets.base import GuardedArray
from kernels.buffers import bits_view, guard_value, sentinel_bits, to_float64
from kernels.messages import Message, code_fields

OUTPUT_CAP_CHARS = 500


@dataclass
class TestResult:
    """One test's line in the result document."""

    name: str
    status: str  # "pass" | "fail" | "error"
    message: str = ""
    output: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "message": str(self.message),
                **code_fields(self.message), "output": cap_output(self.output)}


def cap_output(text: str, limit: int = OUTPUT_CAP_CHARS) -> str:
    """The learner's printf output, truncated with a visible marker."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit} more characters not shown)"


def check_guards(buffer: GuardedArray, dtype: str) -> str | None:
    """A message when anything outside the payload changed, else None."""
    g = buffer.guard_elems
    expected = bits_view(guard_value(dtype))[0]
    bits = bits_view(buffer.full)
    before = np.flatnonzero(bits[:g] != expected)
    after = np.flatnonzero(bits[g + buffer.size:] != expected)
    if before.size == 0 and after.size == 0:
        return None
    parts = []
    counts = {"before": int(before.size), "after": int(after.size),
              "before_first": int(before[0]) - g if before.size else 0,
              "after_first": buffer.size + int(after[0]) if after.size else 0}
    if before.size:
        parts.append(f"{before.size} element(s) before the start (first at index {int(before[0]) - g})")
    if after.size:
        parts.append(f"{after.size} element(s) past the end (first at index {buffer.size + int(after[0])})")
    return Message(f"wrote outside buffer '{buffer.name}': " + ", ".join(parts), "wrote_outside",
                   buffer=buffer.name, **counts)


def check_unchanged(name: str, before: np.ndarray, after: np.ndarray) -> str | None:
    """A message when an input buffer was modified (bitwise), else None."""
    changed = np.flatnonzero(bits_view(np.ascontiguousarray(before)).reshape(-1)
                             != bits_view(np.ascontiguousarray(after)).reshape(-1))
    if changed.size == 0:
        return None
    return Message(f"input '{name}' was modified: {changed.size} element(s) changed "
                   f"(first at index {int(changed[0])}); inputs must stay unchanged",
                   "input_modified", name=name, count=int(changed.size), first=int(changed[0]))


def _mismatches(got: np.ndarray, want: np.ndarray, rtol: float, atol: float,
                scale: np.ndarray | float) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(got - want) <= atol * scale + rtol * np.abs(want)
    both_nan = np.isnan(got) & np.isnan(want)
    same_inf = np.isinf(want) & (got == want)
    finite_want = np.isfinite(want)
    ok = (close & finite_want & np.isfinite(got)) | both_nan | same_inf
    return np.flatnonzero(~ok.reshape(-1))


def compare(name: str, got_raw: np.ndarray, want: np.ndarray, dtype: str, rtol: float,
            atol: float, scale: np.ndarray | float = 1.0) -> str | None:
    """Compare an output with its float64 reference. Per element:
    |got - want| <= atol * scale + rtol * |want|; NaN matches only NaN, ±inf only
    itself. Returns a message (first mismatching index, expected vs got, count)
    or None."""
    got = to_float64(np.asarray(got_raw), dtype).reshape(-1)
    want64 = np.asarray(want, dtype=np.float64).reshape(-1)
    if got.size != want64.size:
        return Message(f"'{name}': expected {want64.size} elements, the reference gave {got.size}",
                       "size_mismatch", name=name, want=int(want64.size), got=int(got.size))
    scale_arr = np.broadcast_to(np.asarray(scale, dtype=np.float64), np.shape(want)).reshape(-1) \
        if np.ndim(scale) else float(scale)
    bad = _mismatches(got, want64, rtol, atol, scale_arr)
    if bad.size == 0:
        return None
    i = int(bad[0])
    index = np.unravel_index(i, np.shape(got_raw)) if np.ndim(got_raw) > 1 else (i,)
    where = f"{name}[{', '.join(str(int(k)) for k in index)}]"
    raw_bits = int(bits_view(np.ascontiguousarray(got_raw).reshape(-1)[i:i + 1])[0])
    never = " (never written)" if raw_bits == sentinel_bits(dtype) else ""
    return Message(f"{where}: expected {_fmt(want64[i])}, got {_fmt(got[i])}{never}; "
                   f"{bad.size} of {got.size} element(s) differ", "mismatch", where=where,
                   expected=_fmt(want64[i]), got=_fmt(got[i]), count=int(bad.size),
                   size=int(got.size), never_written=int(bool(never)))


def _fmt(value: float) -> str:
    if np.isnan(value) or np.isinf(value):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.7g}"


def reference_is_trivial(want: np.ndarray, atol: float, scale: np.ndarray | float = 1.0) -> bool:
    """True when an all-zero output would pass: such a case cannot tell a kernel
    that writes nothing from a correct one, so exercises must not have it."""
    want_array = np.asarray(want, dtype=np.float64)
    want64 = want_array.reshape(-1)
    # a per-element scale has the output's shape: broadcast before flattening, as compare() does
    limit = np.broadcast_to(atol * np.asarray(scale, dtype=np.float64), want_array.shape).reshape(-1)
    return bool(np.all(np.abs(want64) <= limit)) if want64.size else True


def check_case(name: str, after: dict[str, GuardedArray], inputs_before: dict[str, np.ndarray],
               want: dict[str, np.ndarray], dtypes: dict[str, str], rtol: float, atol: float,
               scales: dict[str, Any] | None = None, output: str = "") -> TestResult:
    """Judge one case from the buffers a backend returned.

    Order matters for the message a learner sees: out-of-bounds writes first
    (they explain everything else), then modified inputs, then wrong values.
    """
    for buf_name, buffer in after.items():
        problem = check_guards(buffer, dtypes[buf_name])
        if problem:
            return TestResult(name, "fail", problem, output)
    for buf_name, before in inputs_before.items():
        problem = check_unchanged(buf_name, before, after[buf_name].payload)
        if problem:
            return TestResult(name, "fail", problem, output)
    scales = scales or {}
    for buf_name, expected in want.items():
        problem = compare(buf_name, after[buf_name].payload, expected, dtypes[buf_name],
                          rtol, atol, scales.get(buf_name, 1.0))
        if problem:
            return TestResult(name, "fail", problem, output)
    return TestResult(name, "pass", "", output)
