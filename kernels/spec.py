"""Exercise specs: `exercise.toml` → frozen dataclasses, validated at load.

Every error is a `SpecError` naming the file and the field, e.g.
`lessons/02-reduction/exercises/block_sum/exercise.toml: launch[0].grid: unknown name 'M'`.
The format is documented in docs/architecture.md ("The exercise spec").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernels.expr import Expr, ExprError, parse

DTYPES = ("int8", "uint8", "float16", "bfloat16", "float32", "float64", "int32", "uint32", "int64")
ROLES = ("in", "out", "inout", "scratch")
INITS = ("sentinel", "zeros")
DIFFICULTIES = ("easy", "medium", "hard")
# C scalar types a kernel parameter may have, and the dtype used to pass them.
SCALAR_CTYPES = {"int": "int32", "unsigned": "uint32", "unsigned int": "uint32",
                 "long long": "int64", "size_t": "uint64", "float": "float32",
                 "double": "float64", "int64_t": "int64", "int32_t": "int32",
                 "uint32_t": "uint32"}
POINTER_CTYPES = {"float": "float32", "double": "float64", "int": "int32",
                  "unsigned": "uint32", "unsigned int": "uint32", "long long": "int64",
                  "int64_t": "int64", "int32_t": "int32", "uint32_t": "uint32",
                  "__half": "float16", "half": "float16", "__nv_bfloat16": "bfloat16",
                  "unsigned char": "uint8",
                  "signed char": "int8", "int8_t": "int8"}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class SpecError(ValueError):
    """A malformed spec: `path` (the file), `field` (dotted path in it), `message`."""

    def __init__(self, path: Path | str, field_: str, message: str) -> None:
        self.path = str(path)
        self.field = field_
        self.message = message
        where = f"{self.path}: {field_}: " if field_ else f"{self.path}: "
        super().__init__(where + message)


@dataclass(frozen=True)
class Param:
    name: str
    ctype: str  # base C type without const/pointer, e.g. "float"
    pointer: bool
    const: bool


@dataclass(frozen=True)
class KernelSpec:
    name: str
    signature: str
    params: tuple[Param, ...]

    def declaration(self) -> str:
        """The exact `extern "C" __global__` declaration the learner must match."""
        return f'extern "C" __global__ void {self.name}({self.signature});'


@dataclass(frozen=True)
class ConstantSpec:
    name: str
    default: int
    choices: tuple[int, ...]


@dataclass(frozen=True)
class BufferSpec:
    name: str
    dtype: str
    shape: tuple[Expr, ...]
    role: str
    init: str


@dataclass(frozen=True)
class ArgSpec:
    """A launch argument: a buffer name, or an expression for a scalar parameter."""

    param: Param
    buffer: str | None
    expr: Expr | None


@dataclass(frozen=True)
class LaunchSpec:
    kernel: str
    grid: tuple[Expr, ...]
    block: tuple[Expr, ...]
    shared_bytes: Expr
    args: tuple[ArgSpec, ...]


@dataclass(frozen=True)
class TritonLaunchSpec:
    """One launch of a Triton version: the `@triton.jit` function's name and its
    arguments in order (buffers by name, scalars as expressions). Grid, `num_warps`,
    `num_stages` and the meta-parameters are the learner's: their `launch_<kernel>`."""

    kernel: str
    args: tuple[ArgSpec, ...]


@dataclass(frozen=True)
class TritonSpec:
    """`[triton]`: the exercise also judges Triton (`*.triton.py` files beside the `.cu` ones)."""

    launches: tuple[TritonLaunchSpec, ...]
    hints: dict[str, tuple[str, ...]]
    rtol: float | None = None  # None: the exercise's [check]
    atol: float | None = None


@dataclass(frozen=True)
class Case:
    """One test or benchmark case: dims and params (numbers or strings)."""

    values: tuple[tuple[str, Any], ...]
    label: str

    @property
    def env(self) -> dict[str, Any]:
        return dict(self.values)


@dataclass(frozen=True)
class BaselineSpec:
    name: str
    source: Path | None = None
    kernels: tuple[KernelSpec, ...] = ()
    launches: tuple[LaunchSpec, ...] = ()
    max_n: int | None = None
    python: str | None = None

    def runs_at(self, n: int) -> bool:
        """Whether the benchmark times this baseline at a case whose first dimension is `n`
        (a one-thread baseline stops at its `max_n`)."""
        return self.max_n is None or n <= self.max_n


@dataclass(frozen=True)
class BenchmarkSpec:
    cases: tuple[Case, ...]
    bytes: Expr | None
    flops: Expr | None
    baselines: tuple[BaselineSpec, ...]
    # the least bytes any correct kernel must move, for the physical floor (#26);
    # None: `bytes` is already that least (most exercises' models are)
    floor_bytes: Expr | None = None


@dataclass(frozen=True)
class Limits:
    compile_s: float = 15.0
    run_s: float = 10.0
    bench_s: float = 20.0


@dataclass(frozen=True)
class Exercise:
    """A loaded, validated exercise. Paths are absolute."""

    id: str
    name: str  # folder name
    title: dict[str, str]
    difficulty: str
    xp: int
    hints: dict[str, tuple[str, ...]]
    kernels: tuple[KernelSpec, ...]
    dims: tuple[str, ...]
    constants: tuple[ConstantSpec, ...]
    buffers: tuple[BufferSpec, ...]
    launches: tuple[LaunchSpec, ...]
    rtol: float
    atol: float
    tests: tuple[Case, ...]
    benchmark: BenchmarkSpec | None
    limits: Limits
    folder: Path
    spec_path: Path
    lesson_dir: Path
    instructions: dict[str, Path] = field(default_factory=dict)
    profile_enabled: bool = True  # [profile] enabled = false: never profiled (#16)
    triton: TritonSpec | None = None  # [triton]: a Triton version (#29)

    @property
    def languages(self) -> tuple[str, ...]:
        """The kernel languages this exercise judges, CUDA first."""
        return ("cuda", "triton") if self.triton is not None else ("cuda",)

    @property
    def starter_path(self) -> Path:
        return self.folder / "starter.cu"

    @property
    def reference_cu_path(self) -> Path:
        return self.folder / "reference.cu"

    @property
    def reference_py_path(self) -> Path:
        return self.folder / "reference.py"

    def kernel(self, name: str) -> KernelSpec:
        return next(k for k in self.kernels if k.name == name)

    def buffer(self, name: str) -> BufferSpec:
        return next(b for b in self.buffers if b.name == name)


def parse_signature(signature: str) -> tuple[Param, ...]:
    """`"const float* in, float* out, int N"` → params. Raises ValueError."""
    params: list[Param] = []
    for raw in (p.strip() for p in signature.split(",")):
        if not raw:
            raise ValueError("empty parameter")
        pointer = raw.count("*")
        if pointer > 1:
            raise ValueError(f"{raw!r}: only single pointers are supported")
        words = raw.replace("*", " ").split()
        words = [w for w in words if w not in ("__restrict__", "restrict")]
        const = "const" in words
        words = [w for w in words if w != "const"]
        if len(words) < 2 or not _IDENT.match(words[-1]):
            raise ValueError(f"{raw!r}: expected `type name`")
        ctype = " ".join(words[:-1])
        table = POINTER_CTYPES if pointer else SCALAR_CTYPES
        if ctype not in table:
            raise ValueError(f"{raw!r}: unsupported type {ctype!r}")
        params.append(Param(words[-1], ctype, bool(pointer), const))
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise ValueError("duplicate parameter names")
    return tuple(params)


def parse_expr(path: Path, field_: str, value: Any, names: set[str]) -> Expr:
    """Parse an expression field and check its names; errors name the field."""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise SpecError(path, field_, f"expected an expression or a number, got {value!r}")
    try:
        expr = parse(value)
    except ExprError as exc:
        raise SpecError(path, field_, str(exc)) from None
    unknown = sorted(expr.names - names)
    if unknown:
        raise SpecError(path, field_, f"unknown name {unknown[0]!r}")
    return expr
