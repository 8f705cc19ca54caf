"""The check program's instrumentation, read from what g++ built (#27).

The check program sees a learner's load or store only because g++'s
-fsanitize=thread put a call to our checker (`__tsan_read4`, `__tsan_write8`,
… runtime/kdojo_check.cpp) before it. A function compiled without that
instrumentation (`no_sanitize("thread")` in any spelling, a runtime macro
that carries it, whatever GCC adds next) reads and writes unseen: an
out-of-bounds access in it is seen by no build. So, in the check program's
object, every function of the learner's (`kdojo_user`'s mangled names, and the
exercise's kernels by their plain names) either calls into the sanitizer
somewhere in its code, or is one that GCC leaves alone because it touches no
memory: its instructions (objdump's disassembly, jailed like the compiler)
use registers, its own stack frame and read-only data only (constants, jump
tables), and call nothing. GCC instruments every function that calls another
(`__tsan_func_entry`), so an uninstrumented one that calls is refused too.

A refusal is the learner's compile_error with one line (objcheck.ObjectRefused).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kernels.emu.objcheck import (
    _LEARNER,
    _SHN_UNDEF,
    _STT_FUNC,
    ObjectRefused,
    _Elf,
    _Symbol,
)
from kernels.messages import Message

_SANITIZER_PREFIX = "__tsan_"
_STB_LOCAL = 0
_SHF_WRITE, _SHF_ALLOC, _SHF_EXECINSTR = 0x1, 0x2, 0x4
# `   1c:\tmovss  0x0(%rip),%xmm0        # 24 <f+0x24>` (objdump -d -w --no-show-raw-insn)
_INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
_SECTION = re.compile(r"^Disassembly of section (.*):$")
# Prefixes objdump prints before the mnemonic; `rep…` makes a string instruction a loop over memory.
_PREFIXES = frozenset({"lock", "notrack", "bnd", "data16", "addr32", "cs", "ds", "es", "ss", "fs", "gs",
                       "rex", "rex.W", "rex.R", "rex.X", "rex.B", "rex.WB", "rex.WR", "rex.WX", "rex.RB",
                       "xacquire", "xrelease"})
_REPEATS = frozenset({"rep", "repz", "repe", "repnz", "repne"})
# Instructions that name an address without reading or writing there.
_ADDRESS_ONLY = re.compile(r"^(?:lea[lqw]?|nop[lw]?|xchg %ax,%ax|endbr64|prefetch\w*)$")
_MEMORY = re.compile(r"^(?:%(?P<seg>[a-z]s):)?(?P<disp>[-\w.+]*)\((?P<base>%\w+)?(?:,(?P<index>%\w+)(?:,\d)?)?\)$")
_BRANCH = re.compile(r"^(?:j\w+|loop\w*)$")
_CALL = re.compile(r"^(?:call|callq|syscall|sysenter|int)$")
_MAX_LISTING_LINES = 2_000_000


@dataclass(frozen=True)
class Uninstrumented:
    """A learner function with no call into the sanitizer in its code: [start, end) of section."""
    name: str
    section: int
    start: int
    end: int


def uninstrumented(path: Path, kernels: tuple[str, ...]) -> tuple[_Elf, list[_Symbol], list[Uninstrumented]]:
    """The check object's learner functions whose code calls no `__tsan_*` function."""
    elf = _Elf(path.read_bytes())
    symbols = elf.symbols()
    calls: dict[int, list[int]] = {}
    for index, section in enumerate(elf.sections):
        if section.flags & _SHF_EXECINSTR:
            calls[index] = sorted(off for off, sym, _ in elf.relocations(index, symbols)
                                  if sym.name.startswith(_SANITIZER_PREFIX) and sym.shndx == _SHN_UNDEF)
    out = []
    for sym in symbols:
        if sym.type != _STT_FUNC or sym.shndx == _SHN_UNDEF or sym.size == 0 or sym.shndx not in calls:
            continue
        if not (_LEARNER.match(sym.name) or (sym.name in kernels and sym.bind != _STB_LOCAL)):
            continue
        start, end = sym.value, sym.value + sym.size
        if not any(start <= off < end for off in calls[sym.shndx]):
            out.append(Uninstrumented(sym.name, sym.shndx, start, end))
    return elf, symbols, out


def check_listing(elf: _Elf, symbols: list[_Symbol], functions: list[Uninstrumented], listing: str) -> None:
    """Raise ObjectRefused unless every function in `functions` touches no memory but its own
    stack frame and read-only data. `listing`: objdump's disassembly of their sections, in the
    object's section order (sections() names them)."""
    code = _instructions(elf, listing)
    for fn in functions:
        relocations = sorted((off, sym) for off, sym, _ in elf.relocations(fn.section, symbols)
                             if fn.start <= off < fn.end)
        body = [(off, text) for off, text in code.get(fn.section, []) if fn.start <= off < fn.end]
        if not body:
            raise ObjectRefused(_message(fn.name, "its code could not be read"))
        why = _memory_use(elf, fn, body, relocations)
        if why:
            raise ObjectRefused(_message(fn.name, why))


def sections(functions: list[Uninstrumented], elf: _Elf) -> list[str]:
    """The names of the sections objdump must disassemble (`-j NAME` each), in the object's order."""
    return [elf.sections[i].name for i in sorted({fn.section for fn in functions})]


def _message(name: str, why: str) -> str:
    return Message(f"the kernel's function '{name[:60]}' was built without the memory checks ({why}): "
                   "kernels may not turn the checks off (no_sanitize and the like)", "unchecked_function",
                   function=name[:60])


def _instructions(elf: _Elf, listing: str) -> dict[int, list[tuple[int, str]]]:
    """objdump's listing as {section index: [(offset, instruction text)]}. A section's name may
    repeat (COMDAT groups): the n-th listing of a name is the n-th section of that name."""
    seen: dict[str, int] = {}
    out: dict[int, list[tuple[int, str]]] = {}
    current: list[tuple[int, str]] | None = None
    for count, line in enumerate(listing.splitlines()):
        if count > _MAX_LISTING_LINES:
            raise ObjectRefused(Message("the compiled kernel is too large to check", "object_too_large"))
        header = _SECTION.match(line)
        if header:
            name = header.group(1)
            matches = [i for i, s in enumerate(elf.sections) if s.name == name]
            nth = seen.get(name, 0)
            seen[name] = nth + 1
            current = out.setdefault(matches[nth], []) if nth < len(matches) else None
            continue
        insn = _INSTRUCTION.match(line)
        if insn and current is not None:
            current.append((int(insn.group(1), 16), insn.group(2).split("#", 1)[0].strip()))
    return out


def _memory_use(elf: _Elf, fn: Uninstrumented, body: list[tuple[int, str]],
                relocations: list[tuple[int, _Symbol]]) -> str:
    """'' if the instructions touch only registers, the stack frame and read-only data; else why not."""
    read_only: set[str] = set()  # registers holding the address of read-only data (lea …(%rip))
    for i, (offset, text) in enumerate(body):
        end = body[i + 1][0] if i + 1 < len(body) else fn.end
        targets = [sym for off, sym in relocations if offset <= off < end]
        words = text.split()
        while words and words[0] in _PREFIXES:
            words.pop(0)
        if not words or words[0] == "(bad)":
            return f"an instruction at +{offset - fn.start:#x} that cannot be decoded"
        if words[0] in _REPEATS:
            return "a repeated string instruction"
        mnemonic, operands = words[0], _operands(" ".join(words[1:]))
        if _CALL.match(mnemonic):
            return "it calls another function"
        if _BRANCH.match(mnemonic) or mnemonic == "jmp":
            why = _branch(fn, operands, targets)
            if why:
                return why
            continue
        if _ADDRESS_ONLY.match(mnemonic):
            if mnemonic.startswith("lea") and len(operands) == 2:
                _track_lea(elf, operands, targets, read_only)
            continue
        for operand in operands:
            why = _operand(elf, operand, targets, read_only)
            if why:
                return why
        if operands and operands[-1].startswith("%"):
            read_only.discard(_wide(operands[-1]))  # the register now holds something else
    return ""


def _operands(text: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def _branch(fn: Uninstrumented, operands: list[str], targets: list[_Symbol]) -> str:
    if targets:
        return "it jumps to another function"
    if len(operands) == 1 and re.fullmatch(r"\*%\w+", operands[0]):
        return ""  # a jump table's computed target
    target = re.match(r"^([0-9a-f]+)(?: <.*>)?$", operands[0]) if len(operands) == 1 else None
    if target is None or not fn.start <= int(target.group(1), 16) < fn.end:
        return "it jumps out of its own code"
    return ""


def _track_lea(elf: _Elf, operands: list[str], targets: list[_Symbol], read_only: set[str]) -> None:
    register = _wide(operands[1])
    m = _MEMORY.match(operands[0])
    if m and m.group("base") == "%rip" and targets and all(_is_read_only(elf, s) for s in targets):
        read_only.add(register)
    else:
        read_only.discard(register)


def _operand(elf: _Elf, operand: str, targets: list[_Symbol], read_only: set[str]) -> str:
    if operand.startswith("$") or (operand.startswith("%") and ":" not in operand):
        return ""  # an immediate or a register
    m = _MEMORY.match(operand)
    if m is None or m.group("seg"):
        return f"a memory access at a fixed or segment address ({operand[:40]})"
    base, index = m.group("base"), m.group("index")
    if base in ("%rsp", "%esp"):
        return ""  # its own stack frame (a local array: GCC checks those in no function)
    if base == "%rip" and index is None:
        if targets and all(_is_read_only(elf, s) for s in targets):
            return ""  # a constant
        return f"a memory access to writable data ({operand[:40]})"
    if base is not None and _wide(base) in read_only and (index is None or _wide(index) not in read_only):
        return ""  # an entry of a read-only table (a switch's jump table, a constant array)
    return f"a memory access through a pointer ({operand[:40]})"


def _is_read_only(elf: _Elf, sym: _Symbol) -> bool:
    if sym.shndx == _SHN_UNDEF or sym.shndx >= len(elf.sections):
        return False
    section = elf.sections[sym.shndx]
    return section.flags & _SHF_ALLOC != 0 and section.flags & _SHF_WRITE == 0


_WIDE = {f"%{r}": f"%r{r[1:]}" for r in ("eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp")}


def _wide(register: str) -> str:
    """%edx → %rdx, %r9d → %r9: a write to the narrow register replaces the wide one."""
    if register in _WIDE:
        return _WIDE[register]
    m = re.fullmatch(r"(%r\d+)[dwb]?", register)
    return m.group(1) if m else register
