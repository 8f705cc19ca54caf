"""The emulator's source checks, on the translation unit as g++'s own preprocessor made it.

kernels/emu/source.py reads the learner's text as written; g++ may read the
same bytes differently (a GCC comment splice `*\\` + spaces + newline + `/`,
a tokenizer corner we did not foresee). So the program is compiled from the
preprocessed file (`g++ -E`, run in the sandbox) after these checks have
read exactly that file: what is checked is what is compiled.

They exist for clear messages, not for safety (the sandbox of
kernels/emu/jail.py holds without them). On everything after the runtime's
headers (the learner's part and the generated kernel table, whatever file
a line marker claims):

* no file may be entered from it, except the runtime's own headers (every
  allowed `#include` was blanked by source.py, so any other is a bypass);
* no CUDA feature the emulator lacks (`asm` / `__asm__` / `__asm`, `clock64`,
  `__cvta_generic_to_shared`, textures, asynchronous copies): the kernel needs
  a GPU (SourceError kind "unsupported", verdict `rejected`, message code
  `needs_gpu`). Checked here and not on the raw text, so a branch that the
  preprocessor drops (`#if defined(__CUDA_ARCH_FEAT_SM90_ALL)`, `#if
  __CUDA_ARCH__ >= 1000`) may use them, and a macro or a line splice cannot
  hide them;
* no attribute that runs code early or places it (`constructor`, `ifunc`,
  `section`, `alias` …) or turns a check off (`no_sanitize…`), spelled
  `__attribute__((…))`, `[[gnu::…]]`, `__declspec(…)` or with digraphs
  (`<:<:…:>:>`, read as `[[…]]`);
* no `#pragma` but `unroll`, `nounroll` and `once` (`_Pragma` arrives here
  as a `#pragma` line).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from kernels.emu.launcher import LEARNER_FILE
from kernels.emu.source import SourceError, Token, tokenize
from kernels.messages import Message

DENIED_ATTRIBUTES = frozenset({
    "constructor", "destructor", "ifunc", "alias", "weakref", "weak", "section", "init_priority", "used",
    "naked", "target_clones", "target", "visibility", "externally_visible", "no_reorder", "retain",
    "no_instrument_function", "no_profile_instrument_function", "no_stack_protector", "optimize",
    "symver", "copy",
})
_ALLOWED_PRAGMAS = frozenset({"unroll", "nounroll", "once"})
# What the runtime's `__shared__` becomes in the check program (runtime/kdojo_device.h
# KDOJO_SHARED_LOOSE) on the learner's line: the one `section` let through. The learner
# cannot spell it (source.py refuses `__attribute__` in the text), and NVRTC has already
# accepted the source, so `__shared__` stands before a variable.
_RUNTIME_SHARED_SECTION = ["__attribute__", "(", "(", "section", "(", r'"kdojo_shared,\"aw\",@nobits#"', ")"]
# CUDA features the emulator does not run: a kernel whose compiled code uses one needs a GPU.
UNSUPPORTED_FEATURES = {
    "asm": "inline PTX assembly (asm)",
    "__asm__": "inline PTX assembly (__asm__)", "__asm": "inline PTX assembly (__asm)",
    "__cvta_generic_to_shared": "__cvta_generic_to_shared",
    "clock64": "clock64", "__pipeline_memcpy_async": "asynchronous copies",
    "tex1Dfetch": "textures",
}
_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)\s*$')
_START = "namespace kdojo_user {"


# The learner's part of the preprocessed file, at most: a 256 KB source makes far less
# (what the runtime's headers add is not counted). Past it, the checks below (Python,
# about 1 s per MB) would cost more than the compile: a line of `_Pragma`s expanded
# from macros gives a line each, so a few KB of source made 60 MB of them.
MAX_LEARNER_BYTES = 1 << 20


def _lines(text: str):
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        yield text[start:end]
        start = end + 1


def learner_lines(preprocessed: str, runtime_dir: Path) -> list[tuple[int, str]]:
    """(line in the learner's file, or 0, text) of everything after the launcher's
    `namespace kdojo_user {`, whatever file the line markers claim (a learner may
    write line markers too). Raises SourceError for a file entered from there that
    is not one of the runtime's headers, or for more than MAX_LEARNER_BYTES of it."""
    lines: list[tuple[int, str]] = []
    current, line, started, size = "", 0, False, 0
    for raw in _lines(preprocessed):
        if started:
            size += len(raw) + 1
            if size > MAX_LEARNER_BYTES:
                raise SourceError(0, Message(f"the preprocessed kernel is larger than {MAX_LEARNER_BYTES >> 20} MB "
                                             "(macros expanded); write it with fewer expansions",
                                             "preprocessed_too_large", megabytes=MAX_LEARNER_BYTES >> 20))
        marker = _MARKER.match(raw)
        if marker:
            number, name, flags = int(marker.group(1)), marker.group(2), marker.group(3).split()
            if started and "1" in flags and not _is_runtime(name, runtime_dir):
                raise SourceError(_at(current, line), Message(f"#include of '{Path(name).name}' is not allowed",
                                                              "include_forbidden", header=Path(name).name))
            current, line = name, number
            continue
        if not started:
            started = current == LEARNER_FILE and raw.strip() == _START
        elif raw.strip():
            lines.append((_at(current, line), raw))
        line += 1
    return lines


def _at(current: str, line: int) -> int:
    return line if current == LEARNER_FILE else 0


def _is_runtime(name: str, runtime_dir: Path) -> bool:
    try:
        return Path(name).resolve().parent == runtime_dir.resolve()
    except OSError:
        return False


def check(preprocessed: str, runtime_dir: Path) -> None:
    """Raise SourceError (with the learner's line) for what the checks refuse."""
    for line, text in learner_lines(preprocessed, runtime_dir):
        try:
            tokens = tokenize(text)
        except SourceError as exc:
            raise SourceError(line, exc.message, exc.kind, exc.feature) from None
        _check_line(line, _normalised(tokens))


# Digraphs as the tokens they stand for, so `<:<:gnu::constructor:>:>` and `%:pragma`
# read as `[[gnu::constructor]]` and `#pragma`; `[ [` (a space between) as `[[`.
_DIGRAPHS = {"<:": "[", ":>": "]", "<%": "{", "%>": "}", "%:": "#", "%:%:": "##"}


def _normalised(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    for tok in tokens:
        text = _DIGRAPHS.get(tok.text, tok.text) if tok.kind == "punct" else tok.text
        if text in ("[", "]") and out and out[-1].text == text:
            out[-1] = dataclasses.replace(out[-1], text=text * 2, end=tok.end)
            continue
        out.append(dataclasses.replace(tok, text=text) if text != tok.text else tok)
    return out


def _check_line(line: int, tokens: list[Token]) -> None:
    if len(tokens) >= 2 and tokens[0].text == "#" and tokens[1].text == "pragma":
        what = tokens[2].text if len(tokens) > 2 else ""
        if what not in _ALLOWED_PRAGMAS:
            raise SourceError(line, Message(f"#pragma {what} is not allowed (only #pragma unroll and #pragma once)",
                                            "pragma_forbidden", pragma=what))
        return
    for i, tok in enumerate(tokens):
        if tok.kind != "ident" and tok.text != "[[":
            continue
        if tok.text in UNSUPPORTED_FEATURES:
            what = UNSUPPORTED_FEATURES[tok.text]
            raise SourceError(line, Message(f"this kernel needs a GPU: {what} is not emulated", "needs_gpu",
                                            line=line, feature=what), "unsupported", what)
        if tok.text in ("__attribute__", "__attribute", "[[", "__declspec"):
            if [t.text for t in tokens[i:i + 7]] == _RUNTIME_SHARED_SECTION:
                continue
            for name in _attribute_names(tokens, i):
                if _denied(name):
                    raise SourceError(line, Message(f"the attribute '{name.strip('_')}' is not allowed in kernels",
                                                    "attribute_forbidden", attribute=name.strip("_")))


def _denied(attribute: str) -> bool:
    """Whether an attribute name is refused: the list above, and every sanitizer switch
    (`no_sanitize`, `no_sanitize_address`, `no_sanitize_thread`, …), which would let a
    kernel's accesses go unchecked in the checked build only."""
    name = attribute.strip("_")
    return name in DENIED_ATTRIBUTES or name.startswith("no_sanitize") or name.startswith("disable_sanitizer")


def _attribute_names(tokens: list[Token], start: int) -> list[str]:
    """The identifiers of the attribute list that starts at tokens[start]
    (`__attribute__((…))` or `[[…]]`)."""
    closing = "]]" if tokens[start].text == "[[" else None
    names, depth = [], 0
    for tok in tokens[start + 1:]:
        if closing and tok.text == closing:
            break
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
            if depth <= 0 and not closing:
                break
        elif tok.kind == "ident":
            names.append(tok.text)
    return names
