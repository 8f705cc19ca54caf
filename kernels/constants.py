"""Learner-chosen compile-time constants (e.g. BLOCK_SIZE) read from the source.

`#define BLOCK_SIZE 128` or `constexpr int BLOCK_SIZE = 128;` (also `static
constexpr`, `const int`, `unsigned`, `uint32_t`, `auto`, `{128}`, and one of
several declarators: `constexpr int BM = 64, BN = 64;`) sets a constant; when
the source does not define it, the spec's default is passed as
`-DBLOCK_SIZE=…`. A value outside the spec's choices is a compile error at the
learner's line.
"""

from __future__ import annotations

import re

from kernels.targets.base import Diagnostic
from kernels.messages import Message
from kernels.spec import Exercise


# The integer types a learner declares a size with, and the specifiers around them.
_TYPE = (r"(?:unsigned\s+(?:int|long(?:\s+long)?|short)|unsigned|(?:long\s+)?long|int|short|size_t|uint|"
         r"u?int(?:8|16|32|64)_t|auto)")
_SPECIFIERS = r"(?:(?:static|inline|__device__|__host__|__constant__)\s+)*"
_EARLIER_DECLARATOR = r"(?:\w+\s*(?:=\s*[^,;{}]+|\{[^,;{}]*\})\s*,\s*)*"


def _patterns(name: str) -> list[re.Pattern[str]]:
    return [
        re.compile(rf"^\s*#\s*define\s+{name}\s+\(?\s*([0-9]+)[uU]?\s*\)?\s*(?://.*)?$"),
        re.compile(rf"^\s*{_SPECIFIERS}(?:constexpr|const)\s+{_SPECIFIERS}{_TYPE}\s+{_EARLIER_DECLARATOR}"
                   rf"{name}\s*(?:=\s*([0-9]+)[uUlL]*|\{{\s*([0-9]+)[uUlL]*\s*\}})\s*[,;]"),
    ]


def _mentions(name: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*(?:#\s*define\s+{name}\b|.*\b(?:constexpr|const)\b.*\b{name}\s*=)")


def read_constants(source: str, exercise: Exercise) -> tuple[dict[str, int], set[str], list[Diagnostic]]:
    """(values, names defined in the source, diagnostics).

    `values` has every constant of the exercise, from the source or the default.
    """
    values: dict[str, int] = {}
    defined: set[str] = set()
    diagnostics: list[Diagnostic] = []
    lines = source.splitlines()
    for constant in exercise.constants:
        values[constant.name] = constant.default
        for number, line in enumerate(lines, start=1):
            found = next((m for p in _patterns(constant.name) if (m := p.match(line))), None)
            if found is None:
                if _mentions(constant.name).match(line):
                    choices = ", ".join(map(str, constant.choices))
                    diagnostics.append(Diagnostic(number, 1, "error", Message(
                        f"{constant.name} must be a plain integer literal (one of {choices})", "constant_literal",
                        name=constant.name, choices=choices)))
                continue
            value = int(next(group for group in found.groups() if group))
            defined.add(constant.name)
            values[constant.name] = value
            if value not in constant.choices:
                choices = ", ".join(map(str, constant.choices))
                diagnostics.append(Diagnostic(number, 1, "error", Message(
                    f"{constant.name} = {value} is not allowed; choose one of {choices}", "constant_choice",
                    name=constant.name, value=value, choices=choices)))
            break
    return values, defined, diagnostics
