"""Triton on the CPU (#29): the interpreter's server, through kernels/triton/interp.py.

Real server processes running Triton 3.6's interpreter on the judge's guarded buffers. They
need a Python with triton: the judge's own, or $KDOJO_TRITON_PYTHON.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from kernels.targets.base import BuildError, Launch, LaunchArg
from kernels.buffers import make_guarded
from kernels.check import check_guards
from kernels.triton import interp


def _triton_python() -> str | None:
    configured = os.environ.get("KDOJO_TRITON_PYTHON")
    if configured:
        return configured
    return sys.executable if importlib.util.find_spec("triton") else None


pytestmark = pytest.mark.skipif(_triton_python() is None,
                                reason="no Python with triton here: set KDOJO_TRITON_PYTHON")

HEAD = "import triton\nimport triton.language as tl\n\n\n"
SAXPY = HEAD + """@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * x + y, mask=mask)
"""
SOFTMAX = HEAD + """@triton.jit
def softmax(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(y_ptr + row * cols + offs, e / tl.sum(e, axis=0), mask=mask)
"""


def _exercise(kernel: str, dtypes: dict[str, str] | None = None) -> SimpleNamespace:
    dtypes = dtypes or {}
    return SimpleNamespace(triton=SimpleNamespace(launches=[SimpleNamespace(kernel=kernel)]),
                           buffer=lambda name: SimpleNamespace(dtype=dtypes.get(name, "float32"), init="sentinel"))


@pytest.fixture
def program(monkeypatch, sandbox):
    monkeypatch.setenv("KDOJO_TRITON_PYTHON", _triton_python())
    made = []

    def build(source: str, kernel: str):
        built = interp.build_program(_exercise(kernel), source)
        made.append(built)
        return built

    yield build
    for built in made:
        built.handle.close()


def _launch(kernel: str, grid: int | tuple, args: list[tuple], **meta) -> Launch:
    grid = (grid, 1, 1) if isinstance(grid, int) else grid
    return Launch(kernel, grid, (128, 1, 1), 0,
                  tuple(LaunchArg(name, "float*" if buf else ("float" if isinstance(v, float) else "int"), buf, v)
                        for name, buf, v in args), tuple(meta.items()) + (("num_warps", 4),))


def _saxpy_buffers(n: int, rng: np.random.Generator) -> dict:
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    return {"x": make_guarded("x", "in", "float32", (n,), "sentinel", x),
            "y": make_guarded("y", "inout", "float32", (n,), "sentinel", y)}


def _saxpy_launch(n: int, block: int = 1024, grid: int | None = None) -> Launch:
    return _launch("saxpy", grid if grid is not None else -(-n // block),
                   [("x_ptr", "x", None), ("y_ptr", "y", None), ("a", None, 2.0), ("n", None, n)], BLOCK=block)


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def test_saxpy_is_correct_through_the_server_case_after_case(program):
    built = program(SAXPY, "saxpy")
    rng = np.random.default_rng(1)
    for n in (1, 1000, 5000):
        buffers = _saxpy_buffers(n, rng)
        want = 2.0 * buffers["x"].payload + buffers["y"].payload
        ran = built.handle.run([_saxpy_launch(n)], buffers, 10.0)
        assert ran.fault is None and ran.diagnostics == []
        np.testing.assert_allclose(buffers["y"].payload, want, rtol=1e-6)
        assert check_guards(buffers["y"], "float32") is None


def test_softmax_is_correct_one_program_per_row(program):
    built = program(SOFTMAX, "softmax")
    rows, cols = 7, 1000
    x = np.random.default_rng(2).standard_normal((rows, cols)).astype(np.float32)
    buffers = {"x": make_guarded("x", "in", "float32", (rows, cols), "sentinel", x),
               "y": make_guarded("y", "out", "float32", (rows, cols), "sentinel", None)}
    launch = _launch("softmax", rows, [("x_ptr", "x", None), ("y_ptr", "y", None), ("rows", None, rows),
                                       ("cols", None, cols)], BLOCK=1024)
    ran = built.handle.run([launch], buffers, 10.0)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert ran.fault is None and ran.diagnostics == []
    np.testing.assert_allclose(buffers["y"].payload, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_a_loop_over_a_scalar_argument_runs(program):
    """`range(0, n, step)` over a scalar argument: Triton 3.6 reads it with int(), which numpy 2
    refuses for a one-element array; the server reads it itself."""
    source = HEAD + """@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    step = tl.num_programs(0) * BLOCK + tl.sum(tl.zeros((BLOCK,), tl.int32), axis=0)  # a @triton.jit helper first
    for start in range(0, n, step):
        offs = start + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
"""
    built = program(source, "saxpy")
    buffers = _saxpy_buffers(1000, np.random.default_rng(12))
    want = 2.0 * buffers["x"].payload + buffers["y"].payload
    ran = built.handle.run([_saxpy_launch(1000, block=64, grid=3)], buffers, 10.0)
    assert ran.fault is None and ran.diagnostics == []
    np.testing.assert_allclose(buffers["y"].payload, want, rtol=1e-6)


def test_numbers_are_the_gpus_bfloat16_rounds_to_nearest_even_and_dot_is_tf32(program):
    source = HEAD + """@triton.jit
def numbers(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    rounded = x.to(tl.bfloat16).to(tl.float32)
    square = tl.reshape(x, (4, 4))
    product = tl.reshape(tl.dot(square, square), (BLOCK,))
    exact = tl.reshape(tl.dot(square, square, input_precision="ieee"), (BLOCK,))
    tl.store(y_ptr + offs, rounded)
    tl.store(y_ptr + BLOCK + offs, product)
    tl.store(y_ptr + 2 * BLOCK + offs, exact)
"""
    built = program(source, "numbers")
    x = (1.0 + np.arange(16, dtype=np.float32) / 3.0).astype(np.float32)
    buffers = {"x": make_guarded("x", "in", "float32", (16,), "sentinel", x),
               "y": make_guarded("y", "out", "float32", (48,), "sentinel", None)}
    launch = _launch("numbers", 1, [("x_ptr", "x", None), ("y_ptr", "y", None), ("n", None, 16)], BLOCK=16)
    ran = built.handle.run([launch], buffers, 10.0)
    assert ran.fault is None, ran.fault
    y = buffers["y"].payload
    bits = x.view(np.uint32).astype(np.uint64)
    nearest_even = (((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
    np.testing.assert_array_equal(y[:16], nearest_even)
    square = x.reshape(4, 4).astype(np.float64)
    tf32 = ((x.view(np.uint32) + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32).reshape(4, 4)
    np.testing.assert_allclose(y[16:32], (tf32.astype(np.float64) @ tf32).reshape(-1), rtol=1e-6)
    np.testing.assert_allclose(y[32:], (square @ square).reshape(-1), rtol=1e-6)
    assert np.abs(y[16:32] - y[32:]).max() > 1e-4  # TF32 is visibly less exact


def test_a_missing_mask_is_reported_with_program_element_and_line(program):
    source = SAXPY.replace(", mask=mask)", ")")
    built = program(source, "saxpy")
    buffers = _saxpy_buffers(1000, np.random.default_rng(3))
    ran = built.handle.run([_saxpy_launch(1000)], buffers, 10.0)
    found = [d for d in ran.diagnostics if d.kind == "out_of_bounds"]
    assert found, ran.diagnostics
    first = found[0].message
    assert first.code == "triton_out_of_bounds"
    assert first.params["program"] == "(0, 0, 0)" and first.params["index"] == 1000 and first.params["last"] == 999
    assert found[0].line == _line(source, "x = tl.load")
    # the store went to the guard band, as on a GPU: the judge's guard check fails the case
    assert check_guards(buffers["y"], "float32") is not None


def test_an_access_outside_every_buffer_is_never_made_and_stops_the_launch(program):
    source = SAXPY.replace("x = tl.load(x_ptr + offs, mask=mask)", "x = tl.load(x_ptr + offs + 100000000, mask=mask)")
    built = program(source, "saxpy")
    ran = built.handle.run([_saxpy_launch(100)], _saxpy_buffers(100, np.random.default_rng(4)), 10.0)
    assert ran.fault is not None and ran.fault.kind == "runtime_error"
    assert ran.fault.name == "out-of-bounds read" and ran.fault.message.code == "triton_out_of_bounds_far"
    assert ran.fault.message.params["line"] == _line(source, "x = tl.load")
    # the server lived: the next case runs in it
    server = built.handle.processes["server"]
    assert server.alive


def test_programs_writing_one_element_without_an_atomic_race(program):
    source = HEAD + """@triton.jit
def total(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    part = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0)
    tl.store(out_ptr, part)
"""
    built = program(source, "total")
    x = np.ones(512, dtype=np.float32)
    buffers = {"x": make_guarded("x", "in", "float32", (512,), "sentinel", x),
               "out": make_guarded("out", "out", "float32", (1,), "sentinel", None)}
    launch = _launch("total", 4, [("x_ptr", "x", None), ("out_ptr", "out", None), ("n", None, 512)], BLOCK=128)
    ran = built.handle.run([launch], buffers, 10.0)
    assert ran.fault is not None and ran.fault.kind == "wrong_answer" and ran.fault.name == "data race"
    race = next(d for d in ran.diagnostics if d.kind == "race")
    assert race.message.code == "triton_race" and race.line == _line(source, "tl.store(out_ptr, part)")
    assert race.message.params["name"] == "out" and race.message.params["index"] == 0


def test_atomics_on_one_element_do_not_race(program):
    source = HEAD + """@triton.jit
def total(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))
"""
    built = program(source, "total")
    buffers = {"x": make_guarded("x", "in", "float32", (512,), "sentinel", np.ones(512, dtype=np.float32)),
               "out": make_guarded("out", "out", "float32", (1,), "zeros", None)}
    built.handle.exercise = SimpleNamespace(triton=built.handle.exercise.triton,
                                            buffer=lambda name: SimpleNamespace(dtype="float32", init="zeros"))
    launch = _launch("total", 4, [("x_ptr", "x", None), ("out_ptr", "out", None), ("n", None, 512)], BLOCK=128)
    ran = built.handle.run([launch], buffers, 10.0)
    assert ran.fault is None and ran.diagnostics == []
    assert buffers["out"].payload[0] == 512.0


def test_reading_an_output_no_program_wrote_is_an_uninitialised_read(program):
    source = HEAD + """@triton.jit
def accumulate(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, acc + tl.load(x_ptr + offs, mask=mask), mask=mask)
"""
    built = program(source, "accumulate")
    buffers = {"x": make_guarded("x", "in", "float32", (100,), "sentinel", np.ones(100, dtype=np.float32)),
               "y": make_guarded("y", "out", "float32", (100,), "sentinel", None)}
    launch = _launch("accumulate", 1, [("x_ptr", "x", None), ("y_ptr", "y", None), ("n", None, 100)], BLOCK=128)
    ran = built.handle.run([launch], buffers, 10.0)
    found = [d for d in ran.diagnostics if d.kind == "uninitialised_read"]
    assert found and found[0].message.code == "triton_uninitialised_read"
    assert found[0].line == _line(source, "acc = tl.load") and found[0].message.params["index"] == 0


def test_an_endless_loop_and_a_huge_grid_end_as_time_limit_exceeded(program):
    looping = SAXPY.replace("    pid = tl.program_id(0)\n", "    pid = tl.program_id(0)\n    while pid >= 0:\n"
                                                                "        pid = pid + 0\n")
    huge = _saxpy_launch(10, block=16, grid=(2 ** 20, 65535, 1))  # 7e10 programs
    for source, launch in ((looping, _saxpy_launch(10)), (SAXPY, huge)):
        built = program(source, "saxpy")
        started = time.monotonic()
        ran = built.handle.run([launch], _saxpy_buffers(10, np.random.default_rng(5)), 2.0)
        assert ran.fault is not None and ran.fault.kind == "time_limit_exceeded", ran.fault
        assert time.monotonic() - started < 8.0


def test_a_python_error_in_a_kernel_is_a_runtime_error_on_its_line(program):
    source = SAXPY.replace("    tl.store(", "    z = tl.load(x_ptr + offs, mask=mask) + tl.zeros((7,), tl.float32)\n"
                                            "    tl.store(")
    built = program(source, "saxpy")
    ran = built.handle.run([_saxpy_launch(100)], _saxpy_buffers(100, np.random.default_rng(6)), 10.0)
    assert ran.fault is not None and ran.fault.kind == "runtime_error" and ran.fault.message.code == "triton_error"
    assert ran.fault.message.params["line"] == _line(source, "z = tl.load")


def test_a_kernel_past_the_servers_memory_is_memory_limit_exceeded(program):
    source = "KEEP = []\n" + SAXPY.replace("    tl.store(", "    for i in range(400):\n"
                                                             "        KEEP.append(tl.zeros((1 << 20,), tl.float64))\n"
                                                             "    tl.store(")
    built = program(source, "saxpy")
    ran = built.handle.run([_saxpy_launch(10)], _saxpy_buffers(10, np.random.default_rng(13)), 60.0)
    assert ran.fault is not None and ran.fault.kind == "memory_limit_exceeded", ran.fault


@pytest.mark.parametrize("hostile", [
    # garbage on every descriptor the protocol may be on
    "import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b'garbage' * 100)\n    except OSError:\n"
    "        pass\n",
    # the server kills itself (twice: the judge's retry meets it again)
    "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
    # exits
    "import os\nos._exit(0)\n",
    # numpy replaced under the interpreter's feet
    "import numpy\nnumpy.add = None\nnumpy.where = None\n",
])
def test_hostile_python_in_the_server_ends_as_a_verdict(program, hostile):
    source = hostile + SAXPY
    built = program(source, "saxpy")
    ran = built.handle.run([_saxpy_launch(100)], _saxpy_buffers(100, np.random.default_rng(7)), 5.0)
    assert ran.fault is not None and ran.fault.kind in ("runtime_error", "rejected"), ran.fault


@pytest.mark.parametrize("attack", ["import os\nos.fork()\n", "import subprocess\nsubprocess.run(['/bin/true'])\n"])
def test_a_kernel_may_start_no_process(program, attack):
    built = program(attack + SAXPY, "saxpy")
    ran = built.handle.run([_saxpy_launch(100)], _saxpy_buffers(100, np.random.default_rng(8)), 5.0)
    assert ran.fault is not None and ran.fault.kind in ("rejected", "runtime_error"), ran.fault


def test_a_kernel_reads_no_file_of_the_host(program):
    source = ("import triton\nSTOLEN = ''\nfor path in ('/etc/hostname', '/etc/passwd', '/proc/1/environ'):\n"
              "    try:\n        STOLEN += open(path).read()\n    except OSError:\n        pass\n") + SAXPY.replace(
        "    tl.store(", "    print(STOLEN)\n    tl.store(")
    built = program(source, "saxpy")
    ran = built.handle.run([_saxpy_launch(10)], _saxpy_buffers(10, np.random.default_rng(10)), 10.0)
    assert ran.fault is None
    assert "root:" not in ran.output and ran.output.strip() == ""


def test_what_the_interpreter_cannot_run_needs_a_gpu():
    source = SAXPY.replace("    tl.store(", "    x = tl.inline_asm_elementwise('mov.b32 $0, $1;', '=r,r', [x], "
                                            "dtype=tl.float32, is_pure=True, pack=1)\n    tl.store(")
    with pytest.raises(BuildError) as caught:
        interp.build_program(_exercise("saxpy"), source)
    assert caught.value.needs_gpu == "tl.inline_asm_elementwise" and caught.value.status == "rejected"
    assert caught.value.diagnostics[0].line == _line(source, "inline_asm_elementwise")


def test_what_the_interpreter_cannot_run_needs_a_gpu_also_when_only_running_shows_it(program):
    hidden = 'getattr(tl, "inline_" + "asm_elementwise")'
    source = SAXPY.replace("    tl.store(", f"    x = {hidden}('mov.b32 $0, $1;', '=r,r', [x], dtype=tl.float32, "
                                            "is_pure=True, pack=1)\n    tl.store(")
    built = program(source, "saxpy")
    ran = built.handle.run([_saxpy_launch(10)], _saxpy_buffers(10, np.random.default_rng(11)), 10.0)
    assert ran.fault is not None and ran.fault.kind == "rejected" and ran.fault.message.code == "needs_gpu"
    assert ran.fault.message.params["line"] == _line(source, "inline_")


def test_the_server_gets_none_of_the_judges_environment(program, monkeypatch):
    monkeypatch.setenv("KDOJO_SECRET_FOR_TEST", "leak")
    built = program(SAXPY, "saxpy")
    assert built.handle.run([_saxpy_launch(10)], _saxpy_buffers(10, np.random.default_rng(9)), 10.0).fault is None
    environ = Path(f"/proc/{built.handle.processes['server']._program_pid()}/environ").read_bytes()
    assert b"KDOJO" not in environ and b"PWD=/kdojo/work" in environ  # the sandbox's own, nothing of ours
