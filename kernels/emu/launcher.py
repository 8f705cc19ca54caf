"""The generated part of an emulator program: the exercise's kernels by name.

`kdojo::launch` deduces each kernel's parameter types from the learner's own
definition and converts the launch plan's arguments to them (buffers to
pointers at the payload, scalars to the parameter's type), so the table needs
only the names the exercise's launch plan uses.
"""

from __future__ import annotations

import re

LAUNCHER_FILE = "kdojo_launcher.cpp"
LEARNER_FILE = "submission.cu"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# What NVRTC predefines for the judge's compile (kernels/compile.py: compute_90),
# defined after the runtime's own headers: the learner's code sees one view on
# both backends, so a host-only `#ifndef __CUDA_ARCH__` branch is dead here too.
NVRTC_MACROS = ("#define __CUDACC__ 1", "#define __CUDACC_RTC__ 1", "#define __CUDA_ARCH__ 900")
# What tells the builds apart, gone before the learner's code (#27): the runtime's headers
# have read them already, and a kernel that could test them could misbehave only where it
# is not checked (read past its shared array in the fast build alone).
BUILD_MACROS_UNDEFINED = ("#undef KDOJO_CHECK", "#undef KDOJO_VOLATILE_STEPS", "#undef __SANITIZE_THREAD__")
# The runtime's own unchecked plumbing (no_sanitize_thread): not the learner's to use.
RUNTIME_MACROS_UNDEFINED = ("#undef KDOJO_UNCHECKED", "#undef KDOJO_NO_COVERAGE")
# What turns the check program's memory checks off, and inline assembly (whose loads and stores
# no check sees), poisoned for the learner's code: g++ itself refuses every later use in any
# spelling (digraph attributes, token pasting, `#undef`); the runtime's macros, defined before,
# may still expand to them. The wall on what was built is kernels/emu/instrumented.py.
POISONED = ("asm", "__asm", "__asm__", *(name for base in (
    "no_sanitize", "no_sanitize_thread", "no_sanitize_address", "no_sanitize_undefined", "no_sanitize_coverage",
    "no_address_safety_analysis", "disable_sanitizer_instrumentation") for name in (base, f"__{base}__")))


# C++ library headers a source may need beyond the runtime's (kernels/emu/source.py
# LIBRARY_HEADERS): included first, before the runtime's macros exist.
_LIBRARY = frozenset({"array", "functional"})


def translation_unit(learner_text: str, kernels: list[str], library: tuple[str, ...] | list[str] = ()) -> str:
    """The whole file g++ compiles: the C++ library headers in `library`, runtime header,
    NVRTC's macros, the learner's text inside `namespace kdojo_user` (with its own line
    numbers), then the kernel table."""
    for name in kernels:
        if not _NAME.match(name):
            raise ValueError(f"not a kernel name: {name!r}")
    for header in library:
        if header not in _LIBRARY:
            raise ValueError(f"not a library header the emulator adds: {header!r}")
    poison = [f"#pragma GCC poison {' '.join(POISONED)}"] if POISONED else []
    lines = [*(f"#include <{h}>" for h in library), '#include "kdojo_cuda.h"', *NVRTC_MACROS, *BUILD_MACROS_UNDEFINED,
             *RUNTIME_MACROS_UNDEFINED, *poison, "namespace kdojo_user {", f'#line 1 "{LEARNER_FILE}"',
             learner_text.rstrip("\n"), "}", f'#line 1 "{LAUNCHER_FILE}"', "namespace kdojo_launch {"]
    # Every name below is the runtime's (kdojo…): the learner's macros are still defined
    # here, and `#define k0 0.79788456f` or `#define a 2` must not rewrite this table.
    for i, name in enumerate(kernels):
        lines.append(f'static void kdojo_k{i}(const kdojo::LaunchArgs* kdojo_args) '
                     f'{{ kdojo::launch("{name}", &::kdojo_user::{name}, kdojo_args); }}')
    lines.append("}  // namespace kdojo_launch")
    entries = ", ".join(f'{{"{name}", &kdojo_launch::kdojo_k{i}}}' for i, name in enumerate(kernels))
    lines.append(f"const kdojo::KernelEntry kdojo_kernels[] = {{{entries}}};")
    lines.append(f"const int kdojo_kernel_count = {len(kernels)};")
    return "\n".join(lines) + "\n"
