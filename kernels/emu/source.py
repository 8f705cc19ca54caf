"""Turn a learner's CUDA source into host C++ the emulator can compile — safely.

NVRTC has already accepted the source (so compile errors are NVRTC's, the
same on both backends). What is left to do here:

* refuse anything that would let g++ read a file or run code before the
  sandbox is up: every `#include` must be an allow-listed CUDA header (they
  are all provided by the runtime, so the line is blanked), and the
  directives and tokens that reach files or bypass that check (`#line`,
  `#embed`, `#include_next`, `__has_include`, `_Pragma`, `##` pasting,
  `__attribute__`, GNU attributes, C linkage, `operator new`) are
  rejected with a message naming them (CUDA features the emulator lacks,
  `asm`, `clock64` …, are found later, on the preprocessed file:
  kernels/emu/preprocessed.py, so a dead `#if` branch may use them);
* rewrite what C++ spells differently: `extern "C"` (dropped: the learner's
  code lives in `namespace kdojo_user`, so no learner symbol can stand in for
  a C library function), `extern __shared__ T name[];` (a pointer to the
  launch's dynamic shared memory) and a kernel's `__launch_bounds__(N)` (its
  body checks the launch's block size against N).

Line numbers are preserved: every rewrite stays on its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kernels.includes import ALLOWED_HEADERS, CUB_HEADERS
from kernels.messages import Message

MAX_SOURCE_BYTES = 256 * 1024

# Headers a kernel may include; the runtime already provides all of them
# (the same list as NVRTC's, kernels/includes.py, less CUB).
ALLOWED_INCLUDES = (ALLOWED_HEADERS - CUB_HEADERS) | frozenset({"cstdint", "stddef.h"})
# Allowed headers whose contents are not always visible: the line becomes the
# runtime's version of it (the others are provided by the runtime anyway).
_RUNTIME_HEADERS = {"math_constants.h": '#include "kdojo_mconst.h"'}  # 25 characters: the
# shortest directive naming math_constants.h has 26
# Headers NVRTC accepts that the emulator does not implement: the kernel needs a GPU.
UNSUPPORTED_INCLUDES = CUB_HEADERS | frozenset({
    "cuda_pipeline.h", "cuda_awbarrier.h", "cuda/barrier", "cuda/pipeline", "cuda_fp8.h",
})
_ALLOWED_DIRECTIVES = frozenset({"define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif",
                                 "error", "warning", "pragma", "include", ""})
_ALLOWED_PRAGMAS = frozenset({"unroll", "nounroll", "once"})
_FORBIDDEN_IDENTIFIERS = {
    "_Pragma": "the _Pragma operator", "__pragma": "the __pragma operator",
    "__has_include": "__has_include", "__has_include_next": "__has_include_next",
    "__has_embed": "__has_embed", "__attribute__": "__attribute__", "__attribute": "__attribute",
    "__declspec": "__declspec", "__builtin_trap": "__builtin_trap",
}
_ALLOWED_STD_ATTRIBUTES = frozenset({"likely", "unlikely", "maybe_unused", "nodiscard", "fallthrough",
                                     "noreturn", "deprecated"})

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+) | (?P<nl>\n) |
    (?P<comment>//[^\n]*|/\*.*?\*/) |
    (?P<raw>\bu8R"|\bLR"|\buR"|\bUR"|\bR") |
    (?P<string>(?:u8|[LuU])?"(?:[^"\\\n]|\\.)*") | (?P<char>(?:u8|[LuU])?'(?:[^'\\\n]|\\.)*') |
    (?P<ident>[A-Za-z_][A-Za-z_0-9]*) | (?P<number>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.'])*) |
    (?P<punct>\#\#|%:%:|%:|<:|:>|<%|%>|\[\[|\]\]|::|\#|\S)
""", re.VERBOSE | re.DOTALL)


class SourceError(ValueError):
    """The source uses something the emulator refuses. `line` is 1-based; `kind` is
    "rejected" (a policy: files, assembly …) or "unsupported" (a CUDA feature)."""

    def __init__(self, line: int, message: str, kind: str = "rejected", feature: str = "") -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message
        self.kind = kind
        self.feature = feature or message  # "unsupported": what needs a GPU, e.g. "CUB"


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    line: int
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """C++ tokens with line numbers; comments and whitespace are dropped,
    line splices are honoured (a spliced token keeps the line it starts on)."""
    spliced = text.replace("\\\r\n", "\\\n")
    tokens: list[Token] = []
    pos, line = 0, 1
    while pos < len(spliced):
        if spliced.startswith("\\\n", pos):
            pos += 2
            line += 1
            continue
        m = _TOKEN.match(spliced, pos)
        if not m:
            raise SourceError(line, Message(f"unexpected character {spliced[pos]!r}", "unexpected_character",
                                            character=repr(spliced[pos])))
        kind = m.lastgroup or "punct"
        value = m.group()
        if kind == "raw":
            raise SourceError(line, Message("raw string literals are not supported by the emulator",
                                            "emu_unsupported", what='R"(…)"'), "unsupported", "raw string literals")
        if kind in ("ident", "number", "punct") and "\\\n" in value:
            value = value.replace("\\\n", "")
        if kind not in ("ws", "comment"):
            tokens.append(Token(kind, value, line, m.start(), m.end()))
        line += m.group().count("\n")
        pos = m.end()
    return tokens


def _directives(tokens: list[Token]) -> list[list[Token]]:
    """Token lists of the preprocessor lines (starting at the `#`)."""
    lines: list[list[Token]] = []
    at_line_start = True
    current: list[Token] | None = None
    for tok in tokens:
        if tok.kind == "nl":
            if current is not None:
                lines.append(current)
                current = None
            at_line_start = True
            continue
        if at_line_start and tok.text in ("#", "%:"):
            current = [tok]
        elif current is not None:
            current.append(tok)
        at_line_start = False
    if current is not None:
        lines.append(current)
    return lines


def _check_directive(d: list[Token]) -> str | None:
    """The include name when `d` is an allowed #include (to blank), else None; raises on a refused directive."""
    line = d[0].line
    if d[0].text == "%:":
        raise SourceError(line, Message("digraphs (%:) are not supported by the emulator", "emu_unsupported",
                                        what="%:"))
    name = d[1].text if len(d) > 1 and d[1].kind == "ident" else ""
    if len(d) > 1 and not name:
        raise SourceError(line, Message(f"unknown preprocessor directive '#{d[1].text}'", "unknown_directive",
                                        directive=d[1].text[:60]))
    if name not in _ALLOWED_DIRECTIVES:
        raise SourceError(line, Message(f"the #{name} directive is not allowed", "directive_forbidden",
                                        directive=name))
    if name == "pragma":
        what = d[2].text if len(d) > 2 else ""
        if what not in _ALLOWED_PRAGMAS:
            raise SourceError(line, Message(f"#pragma {what} is not allowed (only #pragma unroll and #pragma once)",
                                            "pragma_forbidden", pragma=what))
    if name != "include":
        return None
    rest = d[2:]
    if len(rest) == 1 and rest[0].kind == "string" and rest[0].text.startswith('"'):
        header = rest[0].text[1:-1]
    elif len(rest) >= 3 and rest[0].text == "<" and rest[-1].text == ">":
        header = "".join(t.text for t in rest[1:-1])
    else:
        raise SourceError(line, Message("#include must name a header literally (#include <cuda_fp16.h>)",
                                        "include_literal"))
    if header in UNSUPPORTED_INCLUDES:
        what = "CUB" if header.startswith("cub/") else f"<{header}>"
        raise SourceError(line, Message(f"this kernel needs a GPU: {what} is not emulated", "needs_gpu", line=line,
                                        feature=what), "unsupported", what)
    if header not in ALLOWED_INCLUDES:
        raise SourceError(line, Message(f"#include <{header}> is not allowed: kernels may include only "
                                        + ", ".join(sorted(ALLOWED_INCLUDES)),
                                        "include_path" if "/" in header else "include_forbidden",
                                        header=header.replace("\\", "/").rsplit("/", 1)[-1]))
    return header


# <cuda/std/…> headers whose C++ library header the runtime does not include for
# every submission (kdojo_cuda.h keeps the compile small; <functional> alone doubles
# it): the translation unit includes them ahead of the runtime when the source asks
# (kernels/emu/launcher.py), so `cuda::std::array` and `cuda::std::plus` exist.
LIBRARY_HEADERS = {"cuda/std/array": "array", "cuda/std/functional": "functional"}


def library_headers(source: str) -> list[str]:
    """The C++ library headers (`array`, `functional`) the source's allowed
    `#include`s need beyond the runtime's own; the source has passed prepare()."""
    found: list[str] = []
    for d in _directives(tokenize(source.replace("\r\n", "\n"))):
        header = _check_directive(d)
        if header in LIBRARY_HEADERS and LIBRARY_HEADERS[header] not in found:
            found.append(LIBRARY_HEADERS[header])
    return found


def _check_tokens(tokens: list[Token]) -> None:
    depth = 0
    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.text in ("##", "%:%:"):
            raise SourceError(tok.line, Message("token pasting (##) is not supported by the emulator",
                                                "emu_unsupported", what="##"))
        if tok.text in ("<%", "%>", "<:", ":>"):
            raise SourceError(tok.line, Message("digraphs are not supported by the emulator", "emu_unsupported",
                                                what=tok.text))
        if tok.kind == "string" and "??" in tok.text:
            continue
        if tok.text == "?" and nxt is not None and nxt.text == "?":
            third = tokens[i + 2].text if i + 2 < len(tokens) else ""
            if third in ("=", "/", "'", "(", ")", "!", "<", ">", "-"):
                raise SourceError(tok.line, Message("trigraphs are not supported by the emulator", "emu_unsupported",
                                                    what="??" + third))
        if tok.kind == "ident":
            if tok.text in _FORBIDDEN_IDENTIFIERS:
                raise SourceError(tok.line, Message(f"{_FORBIDDEN_IDENTIFIERS[tok.text]} is not allowed in kernels",
                                                    "identifier_forbidden", identifier=tok.text))
            if tok.text == "extern" and not _extern_allowed(tokens, i):
                raise SourceError(tok.line, Message("only extern \"C\" and extern __shared__ declarations are "
                                                    "supported", "extern_forbidden"))
            if tok.text == "operator" and nxt is not None and nxt.text in ("new", "delete"):
                raise SourceError(tok.line, Message(f"defining operator {nxt.text} is not allowed in kernels",
                                                    "operator_forbidden", operator=nxt.text))
        if tok.text == "[[":
            j = i + 1
            while j < len(tokens) and tokens[j].text != "]]":
                t = tokens[j]
                if t.kind == "ident" and t.text not in _ALLOWED_STD_ATTRIBUTES:
                    raise SourceError(t.line, Message(f"the attribute '{t.text}' is not allowed in kernels",
                                                      "attribute_forbidden", attribute=t.text[:60]))
                j += 1
        if tok.text in ("{", "<%"):
            depth += 1
        elif tok.text in ("}", "%>"):
            depth -= 1
            if depth < 0:
                raise SourceError(tok.line, Message("unbalanced braces: '}' without a matching '{'", "braces_close"))
    if depth != 0:
        raise SourceError(tokens[-1].line if tokens else 1, Message("unbalanced braces: a '{' is never closed",
                                                                    "braces_open"))


def _extern_allowed(tokens: list[Token], i: int) -> bool:
    """`extern "C"`, or `extern` in a dynamic shared declaration: `extern __shared__`,
    `extern volatile __shared__`, `__shared__ extern` (the orders NVRTC takes)."""
    j = i + 1
    while j < len(tokens) and tokens[j].text in ("volatile", "const"):
        j += 1
    before = tokens[i - 1].text if i > 0 else ""
    return before == "__shared__" or (j < len(tokens) and tokens[j].text in ('"C"', "__shared__"))


# Both rewrites below read one declaration each: from its `extern`/`__shared__` token to the
# next `;` token, at most _MAX_DECLARATION characters, and only where no other `__shared__`
# stands before that `;`. So every character is read by at most one match, and a source
# (a comment of 250 KB of `__shared__ float `, which NVRTC accepts) costs linear time: over
# the whole text, these patterns took minutes on such a source (quadratic backtracking).
_MAX_DECLARATION = 4096

_EXTERN_SHARED = re.compile(
    r"(?:extern\s+(?P<cv>(?:(?:volatile|const)\s+)*)__shared__|__shared__\s+extern)\s+"
    r"((?:(?:__align__|alignas)\s*\(\s*\w+\s*\)\s*)*)([^;\[\]{}()]*?)\s*\b([A-Za-z_]\w*)\s*\[\s*\]\s*;")
_ALIGN = re.compile(r"(?:__align__|alignas)\s*\(\s*\w+\s*\)")

_STATIC_SHARED = re.compile(
    r"__shared__\s+(?P<quals>(?:(?:__align__|alignas)\s*\(\s*\w+\s*\)\s*|volatile\s+|const\s+)*)"
    r"(?P<type>[A-Za-z_][\w:]*(?:\s*<[^<>;{}]*>)?(?:\s+[A-Za-z_]\w*)*?)\s+(?P<name>[A-Za-z_]\w*)\s*"
    r"(?P<dims>(?:\[[^\[\];{}]+\]\s*)*)"
    r"(?P<more>(?:,\s*[A-Za-z_]\w*\s*(?:\[[^\[\];{}]+\]\s*)*)*);")
# One more declarator of the same declaration: `, name[N]…`.
_MORE_DECLARATOR = re.compile(r",\s*(?P<name>[A-Za-z_]\w*)\s*(?P<dims>(?:\[[^\[\];{}]+\]\s*)*)")


def _extern_shared(m: re.Match[str], at_file_scope: bool, line: int) -> str:
    """`extern __shared__ T name[];` → a pointer to the launch's dynamic shared memory."""
    ctype = _ALIGN.sub("", m.group(2) + m.group(3)).strip()
    name = m.group(4)
    if ctype and m.group("cv"):
        ctype = f"{' '.join(m.group('cv').split())} {ctype}"
    if not ctype:
        raise SourceError(line, Message("extern __shared__ needs an element type", "extern_shared_type"))
    if not at_file_scope:
        return f"{ctype}* const {name} = reinterpret_cast<{ctype}*>(::kdojo::g_dyn_smem);"
    # File scope: a reference to the running block's pointer (each worker thread has its
    # own), so it is an lvalue of type T* like the array's decay: `name[i]`, `name + k` and
    # `reinterpret_cast<float4*>(name)` all work (a struct converting to T* refused the cast).
    return f"thread_local {ctype}*& {name} = reinterpret_cast<{ctype}*&>(::kdojo::g_dyn_smem);"


def _static_shared(m: re.Match[str]) -> str | None:
    """`__shared__ T name[N]…;` and `__shared__ T name;` → a padded static whose
    middle is the variable, so the checker sees an overrun (and the fast build
    overruns into padding, not into other variables), knows the variable is
    shared (a race on a scalar counter is found like one on an array), and it
    starts poisoned in every block. A declaration of several (`__shared__ float
    a[32], b[32];`) becomes one such static each. Other forms (a pointer, a
    declaration a macro spells) stay `__shared__`, which the check build still
    tracks as unnamed shared memory (runtime/kdojo_device.h KDOJO_SHARED_LOOSE).
    KDOJO_SHARED_STATIC is `static thread_local` in the fast build, whose
    worker threads each run their own blocks, and `static` in the check build."""
    quals, ctype = m.group("quals"), m.group("type").strip()
    declarators = [(m.group("name"), m.group("dims"))] + \
        [(d.group("name"), d.group("dims")) for d in _MORE_DECLARATOR.finditer(m.group("more"))]
    if ctype in ("struct", "class", "union", "enum") or any(n in ("const", "volatile") for n, _ in declarators):
        return None

    def one(name: str, dims: str) -> str:
        store = f"{name}_kdojo_"
        return (f"KDOJO_SHARED_STATIC struct {{ unsigned kdojo_block; unsigned char kdojo_lo[256]; {quals}{ctype} "
                f"v{' '.join(dims.split())}; unsigned char kdojo_hi[256]; }} "
                f"{store}; auto& {name} = KDOJO_SHARED_REF({store}, \"{name}\");")

    return " ".join(one(name, dims) for name, dims in declarators)


def _apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end, new) in ascending, disjoint order replaced, in one pass
    (a copy of the whole text per edit was quadratic in thousands of them)."""
    pieces, done = [], 0
    for start, end, new in edits:
        pieces += [text[done:start], new]
        done = end
    return "".join(pieces) + text[done:]


def _rewrite_shared(text: str, tokens: list[Token]) -> str:
    """The `__shared__` declarations (dynamic `extern` ones, then static ones, above), each
    rewritten on its own lines: a rewrite keeps the declaration's newlines, so later lines
    keep their numbers. `static __shared__ T x[N];` (the blockReduceSum idiom in a
    __device__ function): shared memory is per block anyway, so `static` is blanked (same
    line, same length). `text` has the offsets of `tokens`."""
    depth_before: list[int] = []
    next_semi: list[int] = [len(tokens)] * len(tokens)
    depth = 0
    for tok in tokens:
        depth_before.append(depth)
        depth += 1 if tok.text in ("{", "<%") else -1 if tok.text in ("}", "%>") else 0
    next_shared: list[int] = [len(tokens)] * len(tokens)
    next_line: list[int] = [len(tokens)] * len(tokens)
    semi_after, shared_after, line_after = len(tokens), len(tokens), len(tokens)
    for i in range(len(tokens) - 1, -1, -1):
        next_semi[i], next_shared[i], next_line[i] = semi_after, shared_after, line_after
        if tokens[i].text == ";":
            semi_after = i
        elif tokens[i].text == "__shared__":
            shared_after = i
        elif tokens[i].kind == "nl":
            line_after = i
    in_directive = _on_directive_lines(tokens)
    edits: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.text != "__shared__":
            i += 1
            continue
        lead = i  # `static __shared__`, `static volatile __shared__`: `static` is blanked
        while lead > 0 and tokens[lead - 1].text == "volatile":
            lead -= 1
        if lead > 0 and tokens[lead - 1].text == "static":
            edits.append((tokens[lead - 1].start, tokens[lead - 1].end, " " * len("static")))
        semi = next_semi[i]
        # a macro's `__shared__` (`#define SMEM __shared__`) is no declaration of the lines after it
        if semi >= len(tokens) or next_shared[i] < semi or (in_directive[i] and next_line[i] < semi):
            i += 1
            continue
        first = i  # `extern`, `extern volatile` … before `__shared__`
        while first > 0 and tokens[first - 1].text in ("volatile", "const"):
            first -= 1
        is_extern = (first > 0 and tokens[first - 1].text == "extern") or \
            (i + 1 < len(tokens) and tokens[i + 1].text == "extern")
        if first > 0 and tokens[first - 1].text == "extern":
            first -= 1
        else:
            first = i
        start, end = tokens[first].start, tokens[semi].end
        if end - start <= _MAX_DECLARATION:
            decl = text[start:end]
            if is_extern:
                m = _EXTERN_SHARED.fullmatch(decl)
                new = _extern_shared(m, depth_before[first] == 0, tok.line) if m else None
            else:
                m = _STATIC_SHARED.fullmatch(decl)
                new = _static_shared(m) if m else None
            if new is not None:
                edits.append((start, end, new + "\n" * decl.count("\n")))
        i = semi + 1
    return _apply_edits(text, edits)


def _on_directive_lines(tokens: list[Token]) -> list[bool]:
    """For each token, whether it is on a preprocessor line (after a `#` or `%:` on its line):
    one pass, where asking token by token read back to the line's start (quadratic on a
    256 KB line of declarations)."""
    flags, on = [], False
    for tok in tokens:
        if tok.kind == "nl":
            on = False
        elif tok.text in ("#", "%:"):
            on = True
        flags.append(on)
    return flags


def _rewrite_launch_bounds(text: str, tokens: list[Token]) -> str:
    """`__launch_bounds__(N[, M])` on a kernel's definition: its body starts with
    `::kdojo::launch_bound(N, line)`, so a launch of more than N threads per
    block fails as on a GPU (the PTX `.maxntid` a launch may not exceed), on
    the same line as the `{`. A declaration without a body, a function that is
    not `__global__`, or a `__launch_bounds__` inside a macro, is left to the
    macro (nothing). Every look-up is prepared in one pass over the tokens, so a
    source of thousands of `__launch_bounds__` costs linear time (read token by
    token, a 210 KB line of them took 80 s)."""
    n = len(tokens)
    in_directive = _on_directive_lines(tokens)
    closing = [-1] * n  # a `(`'s matching `)`
    depth_at = [0] * n  # parentheses open before each token
    stack: list[int] = []
    for j, t in enumerate(tokens):
        depth_at[j] = len(stack)
        if t.text == "(":
            stack.append(j)
        elif t.text == ")" and stack:
            closing[stack.pop()] = j
    end_after = [n] * n  # the first `;` or `{` from each token on, at its depth
    nearest: dict[int, int] = {}
    for j in range(n - 1, -1, -1):
        if tokens[j].text in (";", "{"):
            nearest[depth_at[j]] = j
        end_after[j] = nearest.get(depth_at[j], n)
    statement_start = [0] * n  # just after the last `;`, `{` or `}` before each token
    kernels_before = [0] * (n + 1)  # `__global__` tokens before each index
    begin = 0
    for j, t in enumerate(tokens):
        statement_start[j] = begin
        kernels_before[j + 1] = kernels_before[j] + (t.text == "__global__")
        if t.text in (";", "{", "}"):
            begin = j + 1
    inserts: list[tuple[int, str]] = []
    for i, tok in enumerate(tokens):
        if tok.text != "__launch_bounds__" or i + 1 >= n or tokens[i + 1].text != "(" or in_directive[i]:
            continue
        close = closing[i + 1]
        if close < 0:
            continue
        depth, first_arg_end = 0, close
        for j in range(i + 2, close):
            depth += 1 if tokens[j].text in "([{" else -1 if tokens[j].text in ")]}" else 0
            if depth == 0 and tokens[j].text == ",":
                first_arg_end = j
                break
        bound = text[tokens[i + 2].start:tokens[first_arg_end - 1].end].replace("\\\n", " ").replace("\n", " ")
        j = end_after[close + 1] if close + 1 < n else n
        # only a kernel's: nvcc ignores the bounds on a __device__ function
        if j < n and tokens[j].text == "{" and kernels_before[j] > kernels_before[statement_start[i]]:
            inserts.append((tokens[j].end, f" ::kdojo::launch_bound(static_cast<long long>({bound}), {tokens[j].line});"))
    return _apply_edits(text, [(offset, offset, code) for offset, code in sorted(inserts)])


def _blank(text: str, start: int, end: int) -> str:
    """Replace text[start:end] with spaces, keeping its newlines."""
    chunk = "".join("\n" if c == "\n" else " " for c in text[start:end])
    return text[:start] + chunk + text[end:]


def prepare(source: str) -> str:
    """Check `source` and return the learner part of the translation unit
    (same line count). Raises SourceError."""
    if len(source.encode()) > MAX_SOURCE_BYTES:
        raise SourceError(1, Message(f"the source is larger than {MAX_SOURCE_BYTES // 1024} KiB",
                                     "source_too_large", kib=MAX_SOURCE_BYTES // 1024))
    if "\0" in source:
        raise SourceError(1, Message("the source contains a NUL byte", "source_nul"))
    source = source.replace("\r\n", "\n")
    tokens = tokenize(source)
    _check_tokens(tokens)
    if any(tok.text == "__launch_bounds__" for tok in tokens):
        source = _rewrite_launch_bounds(source, tokens)
        tokens = tokenize(source)
    blanks: list[tuple[int, int, str]] = []
    for d in _directives(tokens):
        header = _check_directive(d)
        if header is not None:
            blanks.append((d[0].start, d[-1].end, header))
    text = source
    for start, end, header in sorted(blanks, reverse=True):
        text = _blank(text, start, end)
        if header in _RUNTIME_HEADERS and "\n" not in text[start:end]:
            # The runtime's own version of the header, in the directive's place
            # (never longer than it, so every later offset stays valid).
            include = _RUNTIME_HEADERS[header]
            text = text[:start] + include + text[start + len(include):]
    # `extern "C"`: drop the linkage; `extern "C" { … }` becomes an unnamed namespace.
    for i in reversed(range(len(tokens) - 1)):
        tok = tokens[i]
        if tok.text == "extern" and tokens[i + 1].text == '"C"':
            start, end = tok.start, tokens[i + 1].end
            text = _blank(text, start, end)
            if i + 2 < len(tokens) and tokens[i + 2].text == "{":
                text = text[:start] + "namespace" + text[start + len("namespace"):]
    return _rewrite_shared(text, tokens)
