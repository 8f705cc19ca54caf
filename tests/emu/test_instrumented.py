"""The wall on the check program's instrumentation (kernels/emu/instrumented.py), on objects
the real g++ builds with the check program's flags and the real (jailed) objdump reads.

What GCC leaves uninstrumented because it touches no memory (arithmetic, constants, a
switch's jump table, a constant table) is accepted; a function that turns the checks off
and reads, writes or calls is refused, however it was spelled."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from kernels.emu import build, instrumented, jail
from kernels.emu.objcheck import ObjectRefused

pytestmark = pytest.mark.skipif(not build.toolchain_ok(), reason="needs g++ and Boost.Context")

NO_CHECKS = '__attribute__((no_sanitize("thread", "alignment")))'
MEMORY_FREE = """
namespace kdojo_user {
__attribute__((noinline)) int pure(int x) { return x * 3 + 1; }
__attribute__((noinline)) float scaled(float x) { return x * 3.7f + 0.25f; }
__attribute__((noinline)) void nothing() {}
__attribute__((noinline)) int pick(int k) {
    switch (k) { case 0: return 5; case 1: return 9; case 2: return 13; case 3: return 7; case 4: return 100;
                 case 5: return 1; default: return 0; }
}
static const int kTable[6] = {3, 1, 4, 1, 5, 9};
__attribute__((noinline)) int lookup(int i) { return kTable[i & 3]; }
int local(int x) { int a[4] = {x, x + 1, x + 2, x + 3}; return a[x & 3]; }
}
"""


@pytest.fixture
def work():
    """A folder the jailed objdump can read, as a submission's (it may run as nobody)."""
    path = jail.work_dir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _object(work: Path, source: str) -> Path:
    (work / "tu.cpp").write_text(source)
    flags = [*build._COMMON, *build._LEARNER_FLAGS["check"]]
    subprocess.run([build.gxx() or "g++", *flags, "-x", "c++", "-c", "tu.cpp", "-o", "tu.o"], cwd=work,
                   check=True, capture_output=True, timeout=120)
    (work / "tu.o").chmod(0o644)
    return work / "tu.o"


def test_functions_that_touch_no_memory_are_accepted(work):
    obj = _object(work, MEMORY_FREE)
    _, _, functions = instrumented.uninstrumented(obj, ())
    # GCC instruments none of them (nothing to check), so the listing is read for each.
    assert {"_ZN10kdojo_user4pureEi", "_ZN10kdojo_user4pickEi", "_ZN10kdojo_user6lookupEi"} <= \
        {f.name for f in functions}
    build._check_instrumented(obj, ())


@pytest.mark.parametrize("body, why", [
    ("NO_CHECKS int peek(const int* p, int i) { return p[i]; }", "through a pointer"),
    ("int g_total; NO_CHECKS void add(int v) { g_total += v; }", "writable data"),
    ("int other(int); NO_CHECKS int relay(int v) { return other(v) + 1; }", "calls another function"),
    ("NO_CHECKS void fill(char* p, unsigned long n) { __builtin_memset(p, 0, n); }", "calls another function"),
])
def test_a_function_without_the_checks_that_touches_memory_is_refused(work, body, why):
    obj = _object(work, f"namespace kdojo_user {{ {body.replace('NO_CHECKS', NO_CHECKS)} }}")
    with pytest.raises(ObjectRefused, match=why) as refused:
        build._check_instrumented(obj, ())
    assert "without the memory checks" in str(refused.value)


def test_an_unmangled_kernel_is_the_learners_too(work):
    obj = _object(work, f'extern "C" {NO_CHECKS} void block_sum(const float* in, float* out, int n) '
                            "{ out[0] = in[n]; }")
    build._check_instrumented(obj, ())  # not a kernel of this exercise: not the learner's function
    with pytest.raises(ObjectRefused, match="'block_sum'"):
        build._check_instrumented(obj, ("block_sum",))


def test_gcc_keeps_the_checks_under_an_optimize_attribute(work):
    # GCC does not take -fno-sanitize=… in `optimize` (a warning: bad option): still instrumented.
    obj = _object(work, 'namespace kdojo_user { __attribute__((optimize("-fno-sanitize=thread"))) '
                            "int peek(const int* p, int i) { return p[i]; } }")
    assert instrumented.uninstrumented(obj, ())[2] == []


def test_the_runtimes_own_unchecked_code_is_not_the_learners(work):
    # The runtime's plumbing (atomics) is no_sanitize_thread on purpose, outside kdojo_user.
    obj = _object(work, f"namespace kdojo {{ {NO_CHECKS} int load(const int* p) {{ return *p; }} }}")
    assert instrumented.uninstrumented(obj, ())[2] == []
