"""Starter drift: outside its fill-in regions, a starter must say what the reference says.

A fill-in region in `starter.cu` is the lines between a line holding
`// BEGIN FILL-IN` and a line holding `// END FILL-IN` (the marker lines are
part of the region); a line holding just `// FILL-IN` (text may follow) is an
empty region: the reference may have code there that the starter has not
(helper functions before the kernel, say). Everything else is the exercise's scaffold: the kernel
signature, the setup lines, the constants the learner keeps. It is compared
with `reference.cu` token by token, ignoring comments and white space, so a
reference may explain itself differently but cannot declare a different
signature or setup than the starter the learner was given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BEGIN = "BEGIN FILL-IN"
END = "END FILL-IN"
_MARKER = re.compile(r"//\s*(BEGIN FILL-IN|END FILL-IN|FILL-IN)\b")
_TOKEN = re.compile(
    r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[A-Za-z_]\w*|\d[\w.]*(?:[eE][+-]\d+)?\w*|\S'
)


@dataclass(frozen=True)
class Token:
    text: str
    line: int


class MarkerError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


def _strip_comments(source: str) -> str:
    """Comments become spaces (newlines kept, so line numbers stay right)."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        two = source[i:i + 2]
        if two == "//":
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif two == "/*":
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", source[i:j]))
            i = j
        elif source[i] in "\"'":
            m = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'').match(source, i)
            j = m.end() if m else i + 1
            out.append(source[i:j])
            i = j
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def tokens(source: str, first_line: int = 1) -> list[Token]:
    found = []
    for line_no, line in enumerate(_strip_comments(source).split("\n"), start=first_line):
        found += [Token(m.group(0), line_no) for m in _TOKEN.finditer(line)]
    return found


def scaffold(starter: str) -> list[list[Token]]:
    """The starter's token runs outside fill-in regions (each region splits two runs).

    Raises MarkerError for unbalanced markers, and when there is no region."""
    segments: list[list[Token]] = []
    current: list[str] = []
    start = 1
    open_at: int | None = None
    lines = starter.split("\n")
    for number, line in enumerate(lines, start=1):
        marker = _MARKER.search(line)
        kind = marker.group(1).split()[0] if marker else None
        if kind == "FILL-IN" and open_at is None:
            segments.append(tokens("\n".join(current), start))
            current, start = [], number + 1
        elif kind == "BEGIN":
            if open_at is not None:
                raise MarkerError(number, f"`// {BEGIN}` inside the region opened on line {open_at}")
            segments.append(tokens("\n".join(current), start))
            open_at, current = number, []
        elif kind == "END":
            if open_at is None:
                raise MarkerError(number, f"`// {END}` without a `// {BEGIN}` before it")
            open_at, current, start = None, [], number + 1
        elif open_at is None:
            current.append(line)
    if open_at is not None:
        raise MarkerError(open_at, f"`// {BEGIN}` is never closed by `// {END}`")
    if not segments:
        raise MarkerError(1, f"no fill-in region: mark what the learner writes with `// {BEGIN}` … `// {END}`")
    segments.append(tokens("\n".join(current), start))
    return segments


def _find(haystack: list[str], needle: list[str], start: int) -> int:
    for i in range(start, len(haystack) - len(needle) + 1):
        if haystack[i:i + len(needle)] == needle:
            return i
    return -1


def drift(starter: str, reference: str) -> str | None:
    """None when the reference keeps the starter's scaffold; otherwise a message
    naming the starter line whose code the reference lacks. Raises MarkerError."""
    runs = scaffold(starter)
    ref = [t.text for t in tokens(reference)]
    first, last = [t.text for t in runs[0]], [t.text for t in runs[-1]]
    if ref[:len(first)] != first:
        return _missing(runs[0], ref, 0)
    pos = len(first)
    for run in runs[1:-1]:
        texts = [t.text for t in run]
        found = _find(ref, texts, pos)
        if found < 0:
            return _missing(run, ref, pos)
        pos = found + len(texts)
    if last and (len(ref) - len(last) < pos or ref[len(ref) - len(last):] != last):
        return _missing(runs[-1], ref, pos)
    return None


def _missing(run: list[Token], ref: list[str], pos: int) -> str:
    # the first token after the longest start of this run that the reference has (from pos on)
    texts = [t.text for t in run]
    k = 0
    while k < len(texts) and _find(ref, texts[:k + 1], pos) >= 0:
        k += 1
    bad = run[min(k, len(run) - 1)]
    return (f"line {bad.line}: `{bad.text}` (outside the fill-in regions) is not in reference.cu "
            "at that place: the starter and the reference have drifted apart")
