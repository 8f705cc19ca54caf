"""Triton's cubins on the GPU target (#29): loaded with CuPy, run by CudaBackend unchanged.

    load_program(backend, compiled) -> Program

Each binary of the build (kernels/triton/compile.py) is loaded as its own module and
its entry point is keyed by the binary's key, the `Launch.kernel` of the launches that
run it (kernels/triton/launches.py), so `CudaBackend.run` / `launch_all`, the
benchmark, the anti-cheat and the ncu profile treat a Triton attempt as a CUDA one:
dynamic shared memory past 48 KB is opted in there, per binary. A binary that needs
Triton's global scratch memory (`global_scratch_size` bytes per program) gets an
allocation in place of the null pointer the launch carries, sized for the launch's
grid and kept for the next launch. A cubin the driver refuses is the learner's fault,
as for CUDA: every case then ends with it.

cupy is imported only inside the functions, so this module imports without a GPU.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import numpy as np

from kernels.backend import Program
from kernels.compile import CompileResult
from kernels.triton.compile import TritonBinary, TritonBuild


def load_program(backend: Any, compiled: CompileResult) -> Program:
    """`backend` is the GPU target that will run it (its device is current)."""
    classify = _classify()
    build = compiled.artifact
    if not isinstance(build, TritonBuild) or build.target == "ttir-only":
        raise TypeError("not a Triton build for a GPU")
    keys = tuple(b.key for b in build.binaries)
    try:
        modules, functions = [], {}
        for binary in build.binaries:
            module, function = _load(binary)
            modules.append(module)
            functions[binary.key] = _WithScratch(function, binary) \
                if binary.global_scratch_size or binary.profile_scratch_size else function
    except Exception as exc:  # noqa: BLE001 — a CUDA error here is the learner's (classify re-raises ours)
        return Program(keys, handle={"load_fault": classify(exc, poisoned=True)})
    return Program(keys, handle={"module": modules[0], "modules": modules, "functions": functions,
                                 "shared_opt_in": {}})


def _classify():
    """The GPU target's CUDA-error classifier (kernels/targets/cuda.py once the language
    seam is in, kernels/cuda_backend.py before)."""
    try:
        from kernels.targets.cuda import classify
    except ImportError:
        from kernels.cuda_backend import classify
    return classify


def _load(binary: TritonBinary) -> tuple[Any, Any]:
    import cupy

    fd, path = tempfile.mkstemp(suffix=".cubin")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(binary.cubin)
        module = cupy.RawModule(path=path)
        return module, module.get_function(binary.name)
    finally:
        os.unlink(path)


class _WithScratch:
    """A cupy kernel function whose launches get Triton's scratch memory: the trailing
    null pointers (kernels/triton/launches.py) become `size × programs` bytes, aligned."""

    def __init__(self, function: Any, binary: TritonBinary) -> None:
        self.function = function
        self.binary = binary
        self._memory: dict[int, Any] = {}  # which scratch → its allocation (grown, never shrunk)

    @property
    def shared_size_bytes(self) -> int:
        return self.function.shared_size_bytes

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        return self.function.max_dynamic_shared_size_bytes

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value: int) -> None:
        self.function.max_dynamic_shared_size_bytes = value

    def _pointer(self, which: int, nbytes: int, align: int) -> np.uint64:
        import cupy

        held = self._memory.get(which)
        if held is None or held.nbytes < nbytes + align:
            held = cupy.zeros(nbytes + align, dtype=cupy.uint8)
            self._memory[which] = held
        pointer = held.data.ptr
        return np.uint64((pointer + align - 1) // align * align)

    def __call__(self, grid: tuple[int, int, int], block: tuple[int, int, int], args: tuple,
                 shared_mem: int = 0) -> None:
        b = self.binary
        programs = int(grid[0]) * int(grid[1]) * int(grid[2])
        args = list(args)
        first = len(b.signature)
        for which, (size, align) in enumerate(((b.global_scratch_size, b.global_scratch_align),
                                               (b.profile_scratch_size, b.profile_scratch_align))):
            if size and first + which < len(args):
                args[first + which] = self._pointer(which, size * programs, align)
        self.function(grid, block, tuple(args), shared_mem=shared_mem)
