"""The include policy: a submission may include only a few CUDA headers.

NVRTC reads any file an `#include` names and quotes it in its error log, so
a submission that includes `/etc/passwd` would leak it. Every preprocessor
line that could include something (`#include`, `#include_next`, `#import`,
the digraph `%:include`, a line spliced with backslash-newline, a computed
`#include MACRO`) is found here before NVRTC ever sees the source; anything
but a literal allow-listed header is `rejected`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kernels.messages import Message

# The one allow-list (docs/judge.md "Headers"); the same names mean the same on
# both backends. NVRTC gets the C ones and a CUB umbrella from our own small
# headers (kernels/nvrtc_headers/), cuda/std and CUB from the pinned CCCL wheel;
# the emulator's runtime provides each itself (CUB ends as "needs a GPU").
C_HEADERS = frozenset({
    "cstdint", "stdint.h", "cfloat", "float.h", "climits", "limits.h", "cmath", "math.h",
    "cstddef", "stddef.h", "cstdio", "stdio.h",  # printf is built in on both backends
    "cassert", "assert.h",  # so is assert()
})
CUDA_HEADERS = frozenset({
    "cuda_fp16.h", "cuda_bf16.h", "cooperative_groups.h", "mma.h",
    "cooperative_groups/reduce.h", "cooperative_groups/scan.h", "math_constants.h",
    "cuda_runtime.h", "cuda.h", "device_launch_parameters.h",
})
CUDA_STD_HEADERS = frozenset(f"cuda/std/{name}" for name in (
    "cstdint", "climits", "cfloat", "cstddef", "limits", "type_traits", "utility", "cmath",
    "functional", "array", "cassert",
))
CUB_HEADERS = frozenset({
    "cub/cub.cuh", "cub/block/block_reduce.cuh", "cub/block/block_scan.cuh",
    "cub/block/block_load.cuh", "cub/block/block_store.cuh", "cub/warp/warp_reduce.cuh",
    "cub/warp/warp_scan.cuh",
})
ALLOWED_HEADERS = C_HEADERS | CUDA_HEADERS | CUDA_STD_HEADERS | CUB_HEADERS

_DIRECTIVE = re.compile(r"^\s*(?:#|%:)\s*(include\w*|import)\b(.*)$")
_LITERAL = re.compile(r'^\s*(?:<([^<>"\n]+)>|"([^"\n]+)")\s*$')


@dataclass(frozen=True)
class IncludeViolation:
    line: int  # 1-based line in the learner's source
    message: str


def _strip_comments(text: str) -> str:
    """Blank out comments (keeping newlines, so line numbers stay) and leave
    string/char literals alone."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _logical_lines(source: str) -> list[tuple[int, str]]:
    """(first physical line number, text) with backslash-newline splices joined."""
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    logical: list[tuple[int, str]] = []
    start, buffer = 0, ""
    for number, line in enumerate(lines, start=1):
        if not buffer:
            start = number
        if line.endswith("\\"):
            buffer += line[:-1]
            continue
        logical.append((start, buffer + line))
        buffer = ""
    if buffer:
        logical.append((start, buffer))
    return logical


def check_includes(source: str) -> list[IncludeViolation]:
    """Every include the policy refuses, with its line. Empty when the source is fine."""
    violations = []
    source = source.replace("??=", "#")  # the trigraph for '#', in case the compiler honours it
    joined = "\n".join(text for _, text in _logical_lines(source))
    # comments are stripped after splicing, as the preprocessor does
    stripped = _strip_comments(joined).split("\n")
    for (number, _), text in zip(_logical_lines(source), stripped):
        match = _DIRECTIVE.match(text)
        if not match:
            continue
        directive, rest = match.group(1), match.group(2)
        literal = _LITERAL.match(rest)
        header = (literal.group(1) or literal.group(2)).strip() if literal else None
        if directive != "include" or header is None:
            violations.append(IncludeViolation(number, Message(
                f"#{directive} is only allowed as `#include <header>` with an allowed header", "directive_form",
                directive=directive)))
        elif header not in ALLOWED_HEADERS:
            violations.append(IncludeViolation(number, Message(
                f"#include of {_describe(header)} is not allowed; allowed headers: "
                + ", ".join(sorted(C_HEADERS | CUDA_HEADERS))
                + ", and some of <cuda/std/…> and <cub/…> (see the judge's documentation)",
                "include_path" if "/" in header else "include_forbidden",
                header=_last_part(header))))
    return violations


def _describe(header: str) -> str:
    # never echo a path back in full: it is what an attacker probes with
    name = _last_part(header)
    return f"'{name}'" if "/" not in header else f"a path ('…/{name}')"


def _last_part(header: str) -> str:
    return header.replace("\\", "/").rsplit("/", 1)[-1]
