"""The interpreter server's findings and faults, checked and worded (trusted side).

The server sends parameters, not sentences (JSON in a diagnostic's message): here each is
checked (known kinds and keys, numbers in range, buffer names the judge sent) and worded as
a coded Message (kernels/messages.py), so the web says it in the reader's language. What
does not check out is dropped; a fault of no known name is the learner's runtime_error.
"""

from __future__ import annotations

import json
from typing import Any

from kernels.targets.base import RunDiagnostic, RuntimeFault
from kernels.emu.protocol import WireDiag, WireResponse
from kernels.messages import Message

MAX_LINE = 1 << 20
MAX_DETAIL_CHARS = 600
_ACCESS = ("read", "write", "atomic")


def needs_gpu(feature: str, line: int) -> Message:
    return Message(f"this kernel needs a GPU: {feature} does not run in Triton's interpreter (line {line})",
                   "needs_gpu", line=line, feature=feature)


def _int(value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(value)
    return value


def _program(value: Any) -> str:
    if not isinstance(value, list) or len(value) != 3:
        raise ValueError(value)
    x, y, z = (_int(v, 0, (1 << 31) - 1) for v in value)
    return f"({x}, {y}, {z})"


def _choice(value: Any, choices: tuple[str, ...] | set[str]) -> str:
    if value not in choices:
        raise ValueError(value)
    return value


def _params(text: str) -> dict[str, Any]:
    params = json.loads(text)
    if not isinstance(params, dict):
        raise ValueError("not an object")
    return params


def _at(line: int) -> str:
    return f"line {line}" if line else "an unknown line"


def _out_of_bounds(p: dict, names: set[str], far: bool) -> Message:
    access, name = _choice(p.get("access"), _ACCESS), _choice(p.get("name"), names)
    index, last = _int(p.get("index"), -(1 << 62), 1 << 62), _int(p.get("last"), -1, 1 << 62)
    program, line = _program(p.get("program")), _int(p.get("line"), 0, MAX_LINE)
    where = ("far outside every buffer: the access was not made and the launch stopped (on a GPU: an illegal "
             "address)" if far else "in the judge's guard band past the buffer (a missing or wrong mask)")
    return Message(f"out-of-bounds {access} of buffer '{name}' at element {index}, valid elements are 0..{last}, by "
                   f"program {program} ({_at(line)}): {where}",
                   "triton_out_of_bounds_far" if far else "triton_out_of_bounds",
                   access=access, name=name, index=index, last=last, program=program, line=line)


def _noun(access: str) -> str:
    return "atomic access" if access == "atomic" else access


def _race(p: dict, names: set[str]) -> Message:
    name, index = _choice(p.get("name"), names), _int(p.get("index"), -(1 << 62), 1 << 62)
    program, line = _program(p.get("program")), _int(p.get("line"), 0, MAX_LINE)
    access, other_access = _choice(p.get("access"), _ACCESS), _choice(p.get("other_access"), _ACCESS)
    other = _program(p["other_program"]) if p.get("other_program") is not None else ""
    who = f"another program {other}" if other else "another program"
    return Message(f"data race on buffer '{name}' element {index}: program {program} makes a {_noun(access)} "
                   f"({_at(line)}) of an element {who} made a {_noun(other_access)} of in the same launch; programs "
                   "of a launch run in no fixed order: use an atomic, or give each program its own elements",
                   "triton_race", name=name, index=index, program=program, access=access, other_program=other,
                   other_access=other_access, line=line)


def _uninitialised(p: dict, names: set[str]) -> Message:
    name, index = _choice(p.get("name"), names), _int(p.get("index"), -(1 << 62), 1 << 62)
    program, line = _program(p.get("program")), _int(p.get("line"), 0, MAX_LINE)
    return Message(f"program {program} reads output '{name}' element {index} ({_at(line)}) before any program wrote "
                   "it: outputs start as garbage", "triton_uninitialised_read", name=name, index=index,
                   program=program, line=line)


def diagnostics(found: list[WireDiag], names: set[str]) -> list[RunDiagnostic]:
    """The server's findings that check out, as coded diagnostics."""
    words = {"out_of_bounds": lambda p: _out_of_bounds(p, names, far=False), "race": lambda p: _race(p, names),
             "uninitialised_read": lambda p: _uninitialised(p, names)}
    result = []
    for d in found:
        try:
            message = words[d.kind](_params(d.message))
        except (KeyError, ValueError, TypeError, RecursionError):
            continue
        result.append(RunDiagnostic(d.kind, message.params["line"], message))
    return result


def fault(response: WireResponse, names: set[str], timeout_s: float) -> RuntimeFault | None:
    """The server's fault as a verdict (None: none). Every fault is the learner's."""
    name = response.fault_name
    if name is None:
        return None
    try:
        p = _params(response.fault_message)
        if name.startswith("out-of-bounds "):
            return RuntimeFault("runtime_error", name if name in ("out-of-bounds read", "out-of-bounds write")
                                else "out-of-bounds access", _out_of_bounds(p, names, far=True))
        if name == "time limit exceeded":
            return RuntimeFault("time_limit_exceeded", name, Message(
                f"the launches did not finish within {timeout_s:g} s", "launch_timeout", seconds=f"{timeout_s:g}"))
        if name == "needs_gpu":
            feature = _choice(p.get("feature"), ("tl.inline_asm_elementwise", "extern_elementwise (libdevice)"))
            return RuntimeFault("rejected", "needs_gpu", needs_gpu(feature, _int(response.fault_line, 0, MAX_LINE)))
        if name == "out of memory":
            return RuntimeFault("memory_limit_exceeded", name, Message(
                "memory limit exceeded: the interpreter ran out of its memory", "memory_limit", megabytes=2048))
        if name in ("python error", "device-side assert", "import error", "missing kernel"):
            line = _int(p.get("line", 0), 0, MAX_LINE)
            detail = str(p.get("detail", ""))[:MAX_DETAIL_CHARS]
            return RuntimeFault("runtime_error", name, Message(f"{name} ({_at(line)}): {detail}", "triton_error",
                                                               name=name, line=line, detail=detail))
    except (KeyError, ValueError, TypeError, RecursionError):
        pass
    return RuntimeFault("runtime_error", "output corrupted", "the interpreter's answer named a fault it does not give")
