"""The wall that checks what g++ built, not how it was spelled (#27).

The source checks (source.py, preprocessed.py) read text, and text has many
spellings: digraphs, macros, attribute forms we did not list. What matters is
what ends up in the learner's object file, so after g++ has compiled it, and
before anything of it is linked into a program that runs, the object itself
is read here (ELF64, parsed in Python: the object's names and section contents
are the learner's to shape, so no external parser runs on it):

* every defined global symbol is the learner's (`kdojo_user`'s mangled
  names, or a kernel of the exercise by its plain name), the kernel table
  the launcher adds, or — weak only (a template's or
  an inline function's copy) — a mangled C++ name that no library of the link
  defines. So learner code cannot define `write`, `sigaction`, `syscall`,
  `operator new` or a libstdc++ function and have the runtime call it;
  the runtime's own objects come first on the link line, so their copy of
  any inline function is the one kept;
* no code that runs before `main`: no `.init_array` / `.preinit_array` /
  `.fini_array` / `.ctors` / `.dtors` / `.init` / `.fini` entries of its own
  (only the sanitizer's one constructor in the builds compiled with
  -fsanitize=thread: an entry pointing at code that only calls __tsan_init),
  no ifunc;
* no section outside the set g++ makes for ordinary code;
* no more static shared memory than a GPU takes (48 KB; NVRTC refuses more), per
  declaration and per kernel.

A refusal is the learner's compile_error with one line (ObjectRefused).
"""

from __future__ import annotations

import re
import struct
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kernels.messages import Message

# The kernel table (launcher.translation_unit) is the only strong definition outside kdojo_user.
LAUNCHER_SYMBOLS = frozenset({"kdojo_kernels", "kdojo_kernel_count"})
# A mangled name whose outermost scope is kdojo_user: functions, variables, their local
# statics (Z…), guard variables (GV), thread_local wrappers (TH/TW), vtables and RTTI (TV/TI/TS).
_LEARNER = re.compile(r"_Z(?:GV|GR|TH|TW|T[VIS])?Z?N[rVKRO]*10kdojo_user")
# -fsanitize=thread's module constructor, as g++ emits it: `sub $8,%rsp; call __tsan_init;
# add $8,%rsp; ret` (-O1) or `jmp __tsan_init` (-O2); None: a call's 4 relocated bytes, each
# named by the symbol it must call. A source with `volatile` is also compiled with
# -fsanitize-coverage=trace-pc (kernels/emu/build.py), which instruments the constructor too.
_N4 = (None, None, None, None)
_SANITIZER_CTORS = (
    ((0x48, 0x83, 0xEC, 0x08, 0xE8, *_N4, 0x48, 0x83, 0xC4, 0x08, 0xC3), {5: "__tsan_init"}),
    ((0xE9, *_N4), {1: "__tsan_init"}),
    ((0x48, 0x83, 0xEC, 0x08, 0xE8, *_N4, 0x48, 0x83, 0xC4, 0x08, 0xE9, *_N4),
     {5: "__sanitizer_cov_trace_pc", 14: "__tsan_init"}),
    ((0x48, 0x83, 0xEC, 0x08, 0x48, 0x8B, 0x7C, 0x24, 0x08, 0xE8, *_N4, 0xE8, *_N4, 0xE8, *_N4, 0xE8, *_N4,
      0x48, 0x83, 0xC4, 0x08, 0xC3),
     {10: "__tsan_func_entry", 15: "__sanitizer_cov_trace_pc", 20: "__tsan_init", 25: "__tsan_func_exit"}),
)
_ALLOWED_SECTIONS = re.compile(
    r"(?:|\.text(?:\..*)?|\.data(?:\..*)?|\.bss(?:\..*)?|\.rodata(?:\..*)?|\.tdata(?:\..*)?|\.tbss(?:\..*)?"
    r"|\.debug_\w+|\.comment|\.note\.GNU-stack|\.note\.gnu\.property|\.group|\.eh_frame"
    r"|\.gcc_except_table(?:\..*)?|\.symtab|\.strtab|\.shstrtab|\.symtab_shndx|\.rela?(?:\..*)?"
    # the check build's shared memory a declaration the rewrite did not take (runtime/kdojo_device.h)
    r"|kdojo_shared)")
_EARLY_SECTIONS = re.compile(r"\.(?:init_array|preinit_array|fini_array|ctors|dtors|init|fini)(?:\..*)?")
_STB_GLOBAL, _STB_WEAK, _STB_UNIQUE = 1, 2, 10
_STT_OBJECT, _STT_FUNC, _STT_SECTION, _STT_GNU_IFUNC = 1, 2, 3, 10
_SHT_SYMTAB, _SHT_RELA, _SHT_NOBITS, _SHT_REL = 2, 4, 8, 9
_SHN_UNDEF = 0
# A GPU's static shared memory per kernel (every CUDA architecture: more is dynamic only).
STATIC_SHARED_MAX_BYTES = 48 * 1024
# source.py's padded static (kernels/emu/source.py _static_shared): 4 + 256 + 256 bytes around
# the variable, and alignment padding (at most 2 x 128) besides.
_SHARED_PADDING_BYTES = 4 + 2 * 256
_SHARED_SLACK_BYTES = 2 * 128
_SHARED_ALIGN_BYTES = 124  # the most padding before the variable, for alignments up to 128
_SHARED_STATIC = re.compile(r"\d[A-Za-z_]\w*_kdojo_(?:E|$)")
_MAX_SECTIONS = 1 << 16
_MAX_SYMBOLS = 1 << 20


class ObjectRefused(Exception):
    """What the learner's object may not contain: one line for the learner."""


class LibrariesUnreadable(RuntimeError):
    """The link's libraries could not be listed (binutils missing): our fault, never the learner's."""


@dataclass(frozen=True)
class _Section:
    name: str
    type: int
    offset: int
    size: int
    link: int
    info: int
    entsize: int
    flags: int = 0


@dataclass(frozen=True)
class _Symbol:
    name: str
    bind: int
    type: int
    shndx: int
    size: int
    value: int = 0


class _Elf:
    def __init__(self, data: bytes) -> None:
        self.data = data
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise ObjectRefused(Message("the compiled kernel is not an ELF64 little-endian object", "object_refused"))
        shoff, = self._unpack("<Q", 0x28)
        shentsize, shnum, shstrndx = self._unpack("<HHH", 0x3A)
        if shentsize != 64 or not 0 < shnum <= _MAX_SECTIONS or shstrndx >= shnum:
            raise ObjectRefused(Message("the compiled kernel's section table could not be read", "object_refused"))
        raw = [self._unpack("<IIQQQQIIQQ", shoff + i * 64) for i in range(shnum)]
        names = raw[shstrndx]
        self.sections = [_Section(self._string(names[4], names[5], r[0]), r[1], r[4], r[5], r[6], r[7], r[9], r[2])
                         for r in raw]

    def _unpack(self, fmt: str, offset: int) -> tuple:
        if offset < 0 or offset + struct.calcsize(fmt) > len(self.data):
            raise ObjectRefused(Message("the compiled kernel's object is truncated", "object_refused"))
        return struct.unpack_from(fmt, self.data, offset)

    def _string(self, table_offset: int, table_size: int, index: int) -> str:
        if index >= table_size or table_offset + table_size > len(self.data):
            raise ObjectRefused(Message("the compiled kernel's object has a name out of its table", "object_refused"))
        end = self.data.find(b"\0", table_offset + index, table_offset + table_size)
        if end < 0:
            raise ObjectRefused(Message("the compiled kernel's object has an unterminated name", "object_refused"))
        return self.data[table_offset + index:end].decode("utf-8", errors="replace")

    def symbols(self) -> list[_Symbol]:
        tables = [s for s in self.sections if s.type == _SHT_SYMTAB]
        if len(tables) != 1 or tables[0].entsize != 24 or tables[0].link >= len(self.sections):
            raise ObjectRefused(Message("the compiled kernel's object has no single symbol table", "object_refused"))
        table, strings = tables[0], self.sections[tables[0].link]
        count = table.size // 24
        if count > _MAX_SYMBOLS:
            raise ObjectRefused(Message("the compiled kernel's object has too many symbols", "object_refused"))
        out = []
        for i in range(count):
            name, info, _, shndx, value, size = self._unpack("<IBBHQQ", table.offset + i * 24)
            out.append(_Symbol(self._string(strings.offset, strings.size, name), info >> 4, info & 0xF, shndx, size,
                               value))
        return out

    def relocations(self, section_index: int, symbols: list[_Symbol]) -> list[tuple[int, _Symbol, int]]:
        """The relocations applied to section `section_index`: (offset, symbol, addend)."""
        out = []
        for s in self.sections:
            if s.type == _SHT_RELA and s.info == section_index and s.entsize == 24:
                for i in range(s.size // 24):
                    offset, info, addend = self._unpack("<QQq", s.offset + i * 24)
                    if info >> 32 >= len(symbols):
                        raise ObjectRefused(Message("the compiled kernel's object has a relocation out of its table",
                                                    "object_refused"))
                    out.append((offset, symbols[info >> 32], addend))
            elif s.type == _SHT_REL and s.info == section_index:
                raise ObjectRefused(Message("the compiled kernel's object has relocations g++ does not make",
                                            "object_refused"))
        return out

    def is_sanitizer_ctor(self, index: int, symbols: list[_Symbol]) -> bool:
        """Whether section `index` (an .init_array) is exactly the one entry -fsanitize=thread
        adds: a pointer to a function that only calls (or jumps to) __tsan_init."""
        entries = self.relocations(index, symbols)
        if self.sections[index].size != 8 or len(entries) != 1 or entries[0][0] != 0:
            return False
        _, target, addend = entries[0]
        if target.type != _STT_SECTION or not 0 < target.shndx < len(self.sections):
            return False
        code = self.sections[target.shndx]
        if not 0 <= addend <= code.size - 5 or code.type == _SHT_NOBITS:
            return False
        body = self.data[code.offset + addend:code.offset + min(code.size, addend + 34)]
        for pattern, calls in _SANITIZER_CTORS:
            if len(body) >= len(pattern) and all(p is None or p == c for p, c in zip(pattern, body)):
                named = {off - addend: sym.name for off, sym, _ in self.relocations(target.shndx, symbols)
                         if sym.shndx == _SHN_UNDEF}
                if all(named.get(at) == name for at, name in calls.items()):
                    return True
        return False


@lru_cache(maxsize=4)
def library_symbols(gxx: str) -> frozenset[str]:
    """Mangled names the link's C++ libraries define (libstdc++, Boost.Context): a weak
    definition of one in the learner's object would replace the library's."""
    names: set[str] = set()
    for library in ("libstdc++.a", "libboost_context.a"):
        try:
            path = subprocess.run([gxx, f"-print-file-name={library}"], capture_output=True, text=True,
                                  timeout=30).stdout.strip()
            done = subprocess.run(["nm", "-g", "--defined-only", path], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as exc:
            raise LibrariesUnreadable(f"nm could not list {library}: {exc}") from None
        if done.returncode != 0:
            # Fail closed: without the list, a weak std:: definition could replace libstdc++'s.
            raise LibrariesUnreadable(f"nm could not list {library}: {done.stderr.strip()[:200]}")
        listing = done.stdout
        for line in listing.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[2].startswith("_Z"):
                names.add(parts[2])
    return frozenset(names)


def check_object(path: Path, sanitized: bool, library: frozenset[str], kernels: tuple[str, ...] = ()) -> None:
    """Raise ObjectRefused unless the object at `path` holds only what a kernel may define.
    `sanitized`: compiled with -fsanitize=thread (its module constructor is the compiler's);
    `kernels`: the exercise's kernel names, which an `extern "C"` kernel defines unmangled."""
    elf = _Elf(path.read_bytes())
    symbols = elf.symbols()
    _check_shared(elf, symbols)
    for index, section in enumerate(elf.sections):
        if _EARLY_SECTIONS.fullmatch(section.name):
            if not (sanitized and section.name.startswith(".init_array") and elf.is_sanitizer_ctor(index, symbols)):
                raise ObjectRefused(Message(f"the kernel puts code in {section.name}, to run before or after the "
                                            "program (a constructor or destructor): kernels may not",
                                            "object_section", section=section.name[:60]))
        elif not _ALLOWED_SECTIONS.fullmatch(section.name):
            raise ObjectRefused(Message(f"the kernel defines a section {section.name[:60]!r}: kernels may not "
                                        "place code or data in sections of their own", "object_section",
                                        section=section.name[:60]))
    for sym in symbols:
        if sym.type == _STT_GNU_IFUNC:
            raise ObjectRefused(Message(f"the kernel defines an ifunc ({sym.name[:60]}): kernels may not",
                                        "object_symbol", symbol=sym.name[:60]))
        if sym.bind not in (_STB_GLOBAL, _STB_WEAK, _STB_UNIQUE) or sym.shndx == _SHN_UNDEF:
            continue
        _check_definition(sym, library, kernels)


def _check_shared(elf: _Elf, symbols: list[_Symbol]) -> None:
    """Static shared memory over a GPU's 48 KB, refused as NVRTC refuses it for a GPU (its
    ptxas: "uses too much shared data"), per declaration and per function: the statics of one
    kernel (or device function) add up, as ptxas adds them. A declaration source.py rewrote is a
    padded static named `NAME_kdojo_` (256 bytes each side, plus up to twice its alignment: that
    much slack is allowed); one it did not (a bypassed rewrite) is in the check build's
    `kdojo_shared` section, without padding."""
    loose = {i for i, section in enumerate(elf.sections) if section.name == "kdojo_shared"}
    for i in loose:
        if elf.sections[i].size > STATIC_SHARED_MAX_BYTES:
            raise ObjectRefused(_shared_message(elf.sections[i].size))
    per_function: dict[str, int] = {}
    for sym in symbols:
        if sym.type != _STT_OBJECT:
            continue
        if _SHARED_STATIC.search(sym.name):
            if sym.size > STATIC_SHARED_MAX_BYTES + _SHARED_PADDING_BYTES + _SHARED_SLACK_BYTES:
                raise ObjectRefused(_shared_message(sym.size - _SHARED_PADDING_BYTES))
            # at least this much is the variable: its alignment's padding is at most 124 bytes
            payload = sym.size - _SHARED_PADDING_BYTES - _SHARED_ALIGN_BYTES
        elif sym.shndx in loose:
            payload = sym.size
        else:
            continue
        function = _enclosing_function(sym.name)
        if function:
            per_function[function] = per_function.get(function, 0) + max(0, payload)
    for function, total in per_function.items():
        if total > STATIC_SHARED_MAX_BYTES:
            named = re.match(r"N10kdojo_user(\d+)", function)  # kdojo_user::NAME(…), a kernel's usual form
            if named:
                function = function[named.end():named.end() + int(named.group(1))]
            raise ObjectRefused(Message(f"'{function[:60]}' uses too much shared data ({total} bytes of static "
                                        f"shared memory in all, {STATIC_SHARED_MAX_BYTES} max, as on a GPU): use "
                                        "dynamic shared memory (extern __shared__) for more",
                                        "static_shared_function", function=function[:60], bytes=total,
                                        max_bytes=STATIC_SHARED_MAX_BYTES))


def _enclosing_function(name: str) -> str:
    """The function a local static belongs to, from its mangled name `_ZZ<function>E<len><name>`
    (with an optional discriminator): the function's own plain name where it is one
    (`_ZZ9block_sumE4tile` → block_sum), else its mangled encoding; '' for a static
    outside any function."""
    if not name.startswith("_ZZ"):
        return ""
    for m in reversed(list(re.finditer(r"E(\d+)", name))):
        start, length = m.end(), int(m.group(1))
        if start + length <= len(name) and re.fullmatch(r"(?:_\d|__\d+_)?", name[start + length:]):
            encoding = name[3:m.start()]
            plain = re.fullmatch(r"(\d+)([A-Za-z_]\w*)", encoding)
            return plain.group(2) if plain and len(plain.group(2)) == int(plain.group(1)) else encoding
    return ""


def _shared_message(size: int) -> str:
    return Message(f"the kernel declares {size} bytes of static shared memory, more than a GPU allows "
                   f"({STATIC_SHARED_MAX_BYTES} bytes, 48 KB): use dynamic shared memory (extern __shared__) for "
                   "more", "static_shared", bytes=size, max_bytes=STATIC_SHARED_MAX_BYTES)


def _check_definition(sym: _Symbol, library: frozenset[str], kernels: tuple[str, ...]) -> None:
    name = sym.name
    if "@" in name:
        raise ObjectRefused(Message(f"the kernel defines a versioned symbol ({name[:60]}): kernels may not",
                                    "object_symbol", symbol=name[:60]))
    if _LEARNER.match(name) or (name in LAUNCHER_SYMBOLS and sym.bind == _STB_GLOBAL):
        return
    if name in kernels and sym.bind == _STB_GLOBAL and sym.type == _STT_FUNC:
        return
    if sym.bind != _STB_GLOBAL and name.startswith("_Z") and name not in library:
        return  # a template's or an inline function's copy; the runtime's own copy wins the link
    raise ObjectRefused(Message(f"the kernel defines '{name[:60]}' outside its own code (extern \"C\", another "
                                "namespace, or a library function's name): kernels may define only their own "
                                "functions and variables", "object_symbol", symbol=name[:60]))
