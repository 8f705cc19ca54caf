"""What Python of a Triton file may run where the judge's buffers are (#29, kernels/triton/policy.py).

Read from the syntax tree before anything runs: every Triton file the lessons bring passes,
and what a kernel would need to leave the language (a pointer's `.handle`, `__import__`, a
plain Python helper, a Triton module outside the language) or a file's import would need to
rebind the judge's modules is refused, with its line.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from kernels.triton import policy
from kernels.triton.compile import compile_triton
from tests.triton_lang.sources import SAXPY, SAXPY_AUTOTUNED, SAXPY_DESCRIPTORS, SOFTMAX, line_of

REPO = Path(__file__).resolve().parents[2]
LESSON_FILES = sorted(REPO.glob("lessons/*/exercises/*/**/*.triton.py"))


def refusal(source: str) -> policy.Refusal | None:
    return policy.check(ast.parse(source))


def test_every_triton_file_of_the_lessons_passes():
    assert len(LESSON_FILES) >= 30
    for path in LESSON_FILES:
        assert refusal(path.read_text(encoding="utf-8")) is None, path


@pytest.mark.parametrize("source", [SAXPY, SOFTMAX, SAXPY_DESCRIPTORS])
def test_the_test_sources_pass(source):
    assert refusal(source) is None


ALLOWED_TOP = '''"""A docstring."""
from __future__ import annotations

import math
import triton
import triton.language as tl
from triton.language import constexpr

BLOCK = tl.constexpr(256)
WIDE: tl.constexpr = constexpr(triton.next_power_of_2(1000) * 2)
SIZES = (1, 2, 4)
HALF, QUARTER = 0.5, 0.25
LIMIT = min(int(math.sqrt(4096)), 64)


@triton.jit(do_not_specialize=["n"])
def helper(x, scale: tl.constexpr = 2):
    return x * scale


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr = BLOCK):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    for i in range(len(SIZES)):
        print("i", i)
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(y_ptr + offs, helper(a * x, 2) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch_saxpy(N, **sizes):
    import_anything = __import__("os")  # launch_K runs only in the compile step's sandbox
    class Local:
        pass
    return {"grid": triton.cdiv(N, 256), "BLOCK": 256}


if __name__ == "__main__":
    print(__import__("sys").argv)
'''


def test_imports_definitions_constants_and_a_main_guard_pass():
    assert refusal(ALLOWED_TOP) is None


HEAD = "import triton\nimport triton.language as tl\n\n"


@pytest.mark.parametrize("line", [
    "np = __import__('numpy')",
    "__builtins__['open']('/etc/passwd')",
    "triton.jit = lambda fn: fn",
    "tl.load, tl.store = None, None",
    "setattr(tl, 'load', None)",
    "print('imported')",
    "raise SystemExit(0)",
    "for i in range(3):\n    pass",
    "with open('x') as f:\n    pass",
    "try:\n    pass\nexcept Exception:\n    pass",
    "class Liar(int):\n    pass",
    "__name__ = '__main__'",
    "HANDLER = lambda: 0",
    "G = getattr",
    "OPEN, TYPE = open, type",
    "STATE = [i for i in range(3)]",
    "RUNTIME = triton.runtime.jit",
    "MOD = tl.core.builtins",
    "X = tl.__dict__",
    "@staticmethod\ndef launch_saxpy(N):\n    pass",
    "def launch_saxpy(N, hook=print('default')):\n    pass",
    "def launch_saxpy(N: __import__('os').system('true')):\n    pass",
    "@triton.jit(repr=lambda spec: 'x')\ndef k(x):\n    pass",
])
def test_top_level_code_that_would_run_at_import_is_refused(line):
    source = HEAD + line + "\n"
    got = refusal(source)
    assert got is not None and got.where == "module", line
    assert got.line == 4  # the statement's (or its decorator's) own line


@pytest.mark.parametrize("statement, construct", [
    ("data = x_ptr.handle.data", "x_ptr.handle"),
    ("np = triton.runtime.interpreter.np", "runtime"),
    ("b = tl.core.builtins", "tl.core.builtins"),
    ("c = x_ptr.__class__", "__class__"),
    ("g = getattr(x_ptr, 'handle')", "getattr"),
    ("h = hasattr(x_ptr, 'handle')", "hasattr"),
    ("m = __import__('numpy')", "__import__"),
    ("o = open('/etc/passwd')", "open"),
    ("plain_helper(x_ptr)", "plain_helper"),
    ("f = lambda v: v", "lambda"),
    ("import os", "import os"),
    ("global STATE", "global STATE"),
    ("t = type(x_ptr)", "type"),
    ("e = eval('1')", "eval"),
    ("v = [i for i in range(4)]", "for i in range(4)"),
    ("try:\n        pass\n    except Exception:\n        pass", "try"),
])
def test_a_kernel_may_not_leave_the_language(statement, construct):
    source = HEAD + "def plain_helper(p):\n    return p\n\n\n@triton.jit\ndef k(x_ptr, n):\n    " + statement + "\n"
    got = refusal(source)
    assert got is not None and got.where == "kernel" and got.kernel == "k", statement
    assert got.line == line_of(source, statement.splitlines()[0].strip())
    assert construct in got.construct


def test_the_judge_refuses_them_before_anything_runs(saxpy_exercise):
    source = SAXPY.replace("    tl.store(", "    data = x_ptr.handle.data\n    tl.store(")
    result = compile_triton(source, saxpy_exercise, "emu", None)
    assert result.status == "rejected"
    [diagnostic] = result.diagnostics
    assert diagnostic.message.code == "triton_kernel_code" and diagnostic.line == line_of(source, ".handle")
    assert diagnostic.message.params == {"kernel": "saxpy", "construct": "x_ptr.handle", "jit": "@triton.jit"}
    top = compile_triton(SAXPY + "\nnp = __import__('numpy')\n", saxpy_exercise, "gpu", "sm_90")
    assert top.status == "rejected" and top.diagnostics[0].message.code == "triton_module_code"
    assert top.diagnostics[0].message.params["construct"] == "__import__('numpy')"


def test_autotune_with_constant_configs_passes_and_its_hooks_do_not():
    assert refusal(SAXPY_AUTOTUNED) is None
    hooked = SAXPY_AUTOTUNED.replace('key=["n"])', 'key=["n"], prune_configs_by={"early_config_prune": lambda c, n: c})')
    got = refusal(hooked)
    assert got is not None and got.where == "module" and "lambda" in got.construct
    inside = SAXPY_AUTOTUNED.replace("    pid = tl.program_id(0)\n", "    c = triton.Config({})\n    pid = tl.program_id(0)\n")
    got = refusal(inside)  # triton.Config is for the decorator, not the kernel
    assert got is not None and got.where == "kernel" and got.construct == "triton.Config"


@pytest.mark.parametrize("decorator", ['@triton.heuristics({"BLOCK": lambda args: 1024})',
                                       "@triton.heuristics(values={})"])
def test_heuristics_are_refused_with_where_the_choice_goes(saxpy_exercise, decorator):
    # a heuristic is Python run on the kernel's arguments at every launch (on the CPU target, the
    # interpreter's buffers): the learner is told that launch_saxpy computes the values
    source = SAXPY.replace("@triton.jit\n", decorator + "\n@triton.jit\n", 1)
    for target, arch in (("emu", None), ("gpu", "sm_90")):
        result = compile_triton(source, saxpy_exercise, target, arch)
        assert result.status == "rejected"
        [diagnostic] = result.diagnostics
        assert diagnostic.line == line_of(source, decorator)
        assert diagnostic.message.code == "triton_tuner"
        assert diagnostic.message.params == {"decorator": "triton.heuristics", "kernel": "saxpy",
                                             "launcher": "launch_saxpy"}
    other = compile_triton(SAXPY.replace("@triton.jit\n", "@staticmethod\n@triton.jit\n", 1), saxpy_exercise,
                           "emu", None)
    assert other.diagnostics[0].message.code == "triton_module_code"  # any other decorator: as before


def _triton_python() -> str | None:
    import importlib.util
    return sys.executable if importlib.util.find_spec("triton") else None


@pytest.mark.skipif(_triton_python() is None, reason="no Python with triton here")
def test_the_denied_names_cover_every_module_a_kernel_could_reach():
    """From `triton.language` and a tensor as the interpreter makes it, public attributes whose
    names are not denied lead to no module outside the language (but `math`), no namespace of
    globals and no numpy array (a Triton upgrade that opens one fails here)."""
    probe = '''
import sys, types
import numpy as np
import triton, triton.language as tl
from triton.runtime import interpreter
denied = set(sys.argv[1:])
value = tl.tensor(interpreter.TensorHandle(np.array([1], dtype=np.int32), tl.int32), tl.int32)
found = []
for root, label in ((tl, "tl"), (value, "x")):
    frontier, seen = [(root, label)], {id(root)}
    for _ in range(4):
        reached = []
        for obj, path in frontier:
            try:
                names = dir(obj)
            except Exception:
                continue
            for name in names:
                if name.startswith("_") or name in denied:
                    continue
                try:
                    attr = getattr(obj, name)
                except Exception:
                    continue
                if isinstance(attr, types.ModuleType):
                    if not attr.__name__.startswith("triton.language") and attr.__name__ != "math":
                        found.append(path + "." + name)
                        continue
                if isinstance(attr, np.ndarray) or (isinstance(attr, dict) and "__builtins__" in attr):
                    found.append(path + "." + name)
                if id(attr) not in seen and not isinstance(attr, (int, float, str, bytes, bool, type(None))):
                    seen.add(id(attr))
                    reached.append((attr, path + "." + name))
        frontier = reached[:20000]
print(" ".join(found))
'''
    found = subprocess.run([_triton_python(), "-I", "-c", probe, *sorted(policy.DENIED_ATTRIBUTES)],
                           capture_output=True, text=True, timeout=600, env={"TRITON_INTERPRET": "1"})
    assert found.returncode == 0, found.stderr
    assert found.stdout.split() == []
