"""Learner text made safe for a terminal or a log (#27).

A kernel's printf output, a compiler message quoting the learner's source, a
fault message: any of it can carry ESC, BEL, carriage returns or C1 controls
that clear an operator's screen, paint a fake green "accepted" or set a window
title — and a log is read in a terminal too. Everything learner-reachable is
passed through `printable` before it is written as text; JSON output needs no
more (json.dumps escapes every control character).
"""

from __future__ import annotations

import json
import re
from typing import Any

# C0 controls but tab (and newline where kept), DEL, C1 controls, and the Unicode
# bidirectional overrides and isolates that reorder what a terminal shows.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROLS_AND_NEWLINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, keep_newlines: bool = False) -> str:
    """`text` with every control character written as a visible escape (`\\x1b`)."""
    return (_CONTROLS if keep_newlines else _CONTROLS_AND_NEWLINE).sub(_escape, text)


_JSON_UNESCAPED = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable_json(value: Any) -> str:
    """json.dumps without ASCII escapes (Korean stays readable), but with DEL, C1 controls
    and bidi overrides escaped too: json.dumps escapes only U+0000-U+001F. Those
    characters occur only inside JSON strings, so their \\u escapes keep it valid JSON."""
    return _JSON_UNESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))


def printable_doc(value: Any, keep_newlines_in: frozenset[str] = frozenset({"output"})) -> Any:
    """A copy of a result document (any JSON value) with every string made printable;
    strings under a key in `keep_newlines_in` (a test's output, shown line by line) keep \\n."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, list):
        return [printable_doc(item, keep_newlines_in) for item in value]
    if isinstance(value, dict):
        return {key: (printable(item, keep_newlines=True) if key in keep_newlines_in and isinstance(item, str)
                      else printable_doc(item, keep_newlines_in)) for key, item in value.items()}
    return value
