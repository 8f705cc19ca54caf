"""Reading an `exercise.toml`: `load_spec`, and the field-by-field validation behind it
(the types it builds are `kernels.spec`'s)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from kernels.spec import (DIFFICULTIES, DTYPES, INITS, POINTER_CTYPES, ROLES, ArgSpec,
                          BaselineSpec, BenchmarkSpec, BufferSpec, Case, ConstantSpec,
                          Exercise, KernelSpec, LaunchSpec, Limits, Param, SpecError,
                          TritonLaunchSpec, TritonSpec, _IDENT, parse_expr, parse_signature)

_EXERCISE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*\.[a-z0-9][a-z0-9_-]*$")
_TOP_KEYS = {"id", "title", "difficulty", "xp", "hints", "kernels", "dims", "constants",
             "buffers", "launch", "check", "tests", "benchmark", "limits", "profile", "triton"}


class _Ctx:
    """The file being read, so every helper can raise errors naming it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, field_: str, message: str) -> SpecError:
        return SpecError(self.path, field_, message)

    def get(self, table: dict, key: str, field_: str, kind: type | tuple, default: Any = ...) -> Any:
        if key not in table:
            if default is ...:
                raise self.fail(field_, "missing")
            return default
        value = table[key]
        if isinstance(value, bool) and kind in (int, float, (int, float)):
            raise self.fail(field_, f"expected a number, got {value!r}")
        if not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.fail(field_, f"expected {names}, got {value!r}")
        return value


def build_exercise(path: Path, data: dict[str, Any], lesson_dir: Path) -> Exercise:
    ctx = _Ctx(path)
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise ctx.fail(unknown[0], "unknown field")
    exercise_id = ctx.get(data, "id", "id", str)
    if not _EXERCISE_ID.match(exercise_id):
        raise ctx.fail("id", f"expected '<lesson>.<name>', got {exercise_id!r}")
    title = _lang_table(ctx, data, "title", str)
    hints = _lang_table(ctx, data, "hints", list, default={"ko": [], "en": []})
    if len(hints["ko"]) != len(hints["en"]):
        raise ctx.fail("hints", "ko and en must have the same number of hints")
    difficulty = ctx.get(data, "difficulty", "difficulty", str)
    if difficulty not in DIFFICULTIES:
        raise ctx.fail("difficulty", f"expected one of {', '.join(DIFFICULTIES)}")
    xp = ctx.get(data, "xp", "xp", int)
    if xp < 0:
        raise ctx.fail("xp", "must be >= 0")
    kernels = _kernels(ctx, data)
    dims = _dims(ctx, data)
    constants = _constants(ctx, data)
    tests = _cases(ctx, data.get("tests"), "tests", dims, required=True)
    bench_table = data.get("benchmark")
    bench_cases = _cases(ctx, bench_table, "benchmark", dims, required=False) if bench_table else ()
    params = {k for case in tests + bench_cases for k, _ in case.values} - set(dims)
    names = set(dims) | params | {c.name for c in constants}
    buffers = _buffers(ctx, data, names)
    launches = tuple(_launch(ctx, item, f"launch[{i}]", {k.name: k for k in kernels}, buffers, names)
                     for i, item in enumerate(_list_of_tables(ctx, data, "launch")))
    check = ctx.get(data, "check", "check", dict, default={})
    rtol = float(ctx.get(check, "rtol", "check.rtol", (int, float), default=1e-5))
    atol = float(ctx.get(check, "atol", "check.atol", (int, float), default=1e-6))
    if rtol < 0 or atol < 0:
        raise ctx.fail("check", "rtol and atol must be >= 0")
    benchmark = _benchmark(ctx, bench_table, bench_cases, buffers, names) if bench_table else None
    folder = path.parent
    for required in ("reference.py",):
        if not (folder / required).is_file():
            raise SpecError(folder / required, "", "file not found (every exercise needs it)")
    instructions = {lang: folder / f"instructions.{lang}.md" for lang in ("ko", "en")
                    if (folder / f"instructions.{lang}.md").is_file()}
    return Exercise(
        id=exercise_id, name=folder.name, title=title, difficulty=difficulty, xp=xp,
        hints={k: tuple(v) for k, v in hints.items()}, kernels=kernels, dims=dims,
        constants=constants, buffers=buffers, launches=launches, rtol=rtol, atol=atol,
        tests=tests, benchmark=benchmark, limits=_limits(ctx, data), folder=folder,
        spec_path=path, lesson_dir=lesson_dir.resolve(), instructions=instructions,
        profile_enabled=_profile_enabled(ctx, data),
        triton=_triton(ctx, data, buffers, names) if "triton" in data else None)


_TRITON_KERNEL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _triton(ctx: _Ctx, data: dict, buffers: tuple[BufferSpec, ...], names: set[str]) -> TritonSpec:
    """`[triton]`: `[[triton.launch]]` (kernel, args; optional `signature` for scalar C
    types, else ints are int32 and floats float32, as Triton's own launcher passes them),
    optional `hints = {ko, en}` and `rtol`/`atol` overriding [check]."""
    table = ctx.get(data, "triton", "triton", dict)
    _no_unknown(ctx, table, "triton", {"launch", "hints", "rtol", "atol"})
    launches = []
    for i, item in enumerate(_list_of_tables(ctx, table, "launch", "triton.launch")):
        where = f"triton.launch[{i}]"
        _no_unknown(ctx, item, where, {"kernel", "args", "signature"})
        kernel = ctx.get(item, "kernel", f"{where}.kernel", str)
        if not _TRITON_KERNEL.match(kernel):
            raise ctx.fail(f"{where}.kernel", f"expected a Python function name, got {kernel!r}")
        # the CUDA launch reader checks args against a signature or infers them
        plan = _launch(ctx, {"kernel": kernel, "grid": 1, "block": 1, "args": ctx.get(item, "args", f"{where}.args", list),
                             **({"signature": item["signature"]} if "signature" in item else {})},
                       where, {}, buffers, names)
        launches.append(TritonLaunchSpec(kernel, plan.args))
    hints = {"ko": [], "en": []}
    if "hints" in table:
        hints = _lang_table(_Ctx(ctx.path), {"triton.hints": table["hints"]}, "triton.hints", list)
    if len(hints["ko"]) != len(hints["en"]):
        raise ctx.fail("triton.hints", "ko and en must have the same number of hints")
    tol = {}
    for key in ("rtol", "atol"):
        value = ctx.get(table, key, f"triton.{key}", (int, float), default=None)
        if value is not None and value < 0:
            raise ctx.fail(f"triton.{key}", "must be >= 0")
        tol[key] = None if value is None else float(value)
    return TritonSpec(tuple(launches), {k: tuple(v) for k, v in hints.items()}, **tol)


def _profile_enabled(ctx: _Ctx, data: dict) -> bool:
    """`[profile] enabled = false` turns the profiler off for this exercise (#16)."""
    table = ctx.get(data, "profile", "profile", dict, default={})
    _no_unknown(ctx, table, "profile", {"enabled"})
    return ctx.get(table, "enabled", "profile.enabled", bool, default=True)


def _lang_table(ctx: _Ctx, data: dict, key: str, kind: type, default: Any = ...) -> dict:
    table = ctx.get(data, key, key, dict, default=default)
    for lang in ("ko", "en"):
        value = ctx.get(table, lang, f"{key}.{lang}", kind)
        if kind is list and not all(isinstance(v, str) and v.strip() for v in value):
            raise ctx.fail(f"{key}.{lang}", "expected a list of non-empty strings")
        if kind is str and not value.strip():
            raise ctx.fail(f"{key}.{lang}", "must not be empty")
    return {lang: table[lang] for lang in ("ko", "en")}


def _list_of_tables(ctx: _Ctx, data: dict, key: str, where: str = "") -> list[dict]:
    where = where or key
    items = ctx.get(data, key, where, list)
    if not items:
        raise ctx.fail(where, "must not be empty")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ctx.fail(f"{where}[{i}]", "expected a table")
    return items


def _kernels(ctx: _Ctx, data: dict) -> tuple[KernelSpec, ...]:
    kernels = []
    for i, item in enumerate(_list_of_tables(ctx, data, "kernels")):
        name = ctx.get(item, "name", f"kernels[{i}].name", str)
        if not _IDENT.match(name):
            raise ctx.fail(f"kernels[{i}].name", f"not an identifier: {name!r}")
        signature = ctx.get(item, "signature", f"kernels[{i}].signature", str)
        try:
            params = parse_signature(signature)
        except ValueError as exc:
            raise ctx.fail(f"kernels[{i}].signature", str(exc)) from None
        kernels.append(KernelSpec(name, signature, params))
    if len({k.name for k in kernels}) != len(kernels):
        raise ctx.fail("kernels", "duplicate kernel names")
    return tuple(kernels)


def _dims(ctx: _Ctx, data: dict) -> tuple[str, ...]:
    dims = ctx.get(ctx.get(data, "dims", "dims", dict), "names", "dims.names", list)
    if not dims or not all(isinstance(d, str) and _IDENT.match(d) for d in dims):
        raise ctx.fail("dims.names", "expected a non-empty list of identifiers")
    return tuple(dims)


def _constants(ctx: _Ctx, data: dict) -> tuple[ConstantSpec, ...]:
    out = []
    for name, table in ctx.get(data, "constants", "constants", dict, default={}).items():
        where = f"constants.{name}"
        if not _IDENT.match(name) or not isinstance(table, dict):
            raise ctx.fail(where, "expected a table named by an identifier")
        default = ctx.get(table, "default", f"{where}.default", int)
        choices = ctx.get(table, "choices", f"{where}.choices", list, default=[default])
        if not all(isinstance(c, int) and not isinstance(c, bool) for c in choices):
            raise ctx.fail(f"{where}.choices", "expected a list of integers")
        if default not in choices:
            raise ctx.fail(f"{where}.default", f"{default} is not one of the choices")
        out.append(ConstantSpec(name, default, tuple(choices)))
    return tuple(out)


def _cases(ctx: _Ctx, table: Any, key: str, dims: tuple[str, ...], required: bool) -> tuple[Case, ...]:
    if table is None:
        if required:
            raise ctx.fail(key, "missing")
        return ()
    if not isinstance(table, dict):
        raise ctx.fail(key, "expected a table")
    if "sizes" in table:
        if len(dims) != 1:
            raise ctx.fail(f"{key}.sizes", "`sizes` needs exactly one dim; use `cases`")
        sizes = ctx.get(table, "sizes", f"{key}.sizes", list)
        raw = [{dims[0]: s} for s in sizes]
        where = f"{key}.sizes"
    else:
        raw = ctx.get(table, "cases", f"{key}.cases", list)
        where = f"{key}.cases"
    if not raw:
        raise ctx.fail(where, "must not be empty")
    return tuple(_case(ctx, item, f"{where}[{i}]", dims) for i, item in enumerate(raw))


def _case(ctx: _Ctx, item: Any, where: str, dims: tuple[str, ...]) -> Case:
    if not isinstance(item, dict):
        raise ctx.fail(where, "expected a table")
    for dim in dims:
        value = item.get(dim)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ctx.fail(f"{where}.{dim}", "expected an integer >= 1")
    for key, value in item.items():
        if not _IDENT.match(key) or not isinstance(value, (int, float, str)) or isinstance(value, bool):
            raise ctx.fail(f"{where}.{key}", "expected a number or a string")
    label = "x".join(str(item[d]) for d in dims)
    extra = [f"{k}={v}" for k, v in item.items() if k not in dims]
    label = f"{dims[0].lower()}={label}" if len(dims) == 1 else label
    return Case(tuple(item.items()), " ".join([label] + extra))


def _buffers(ctx: _Ctx, data: dict, names: set[str]) -> tuple[BufferSpec, ...]:
    buffers = []
    for i, item in enumerate(_list_of_tables(ctx, data, "buffers")):
        where = f"buffers[{i}]"
        _no_unknown(ctx, item, where, {"name", "dtype", "shape", "role", "init"})
        name = ctx.get(item, "name", f"{where}.name", str)
        dtype = ctx.get(item, "dtype", f"{where}.dtype", str)
        if dtype not in DTYPES:
            raise ctx.fail(f"{where}.dtype", f"expected one of {', '.join(DTYPES)}")
        shape = ctx.get(item, "shape", f"{where}.shape", list)
        exprs = tuple(parse_expr(ctx.path, f"{where}.shape[{j}]", s, names) for j, s in enumerate(shape))
        role = ctx.get(item, "role", f"{where}.role", str)
        if role not in ROLES:
            raise ctx.fail(f"{where}.role", f"expected one of {', '.join(ROLES)}")
        init = ctx.get(item, "init", f"{where}.init", str, default="sentinel")
        if init not in INITS:
            raise ctx.fail(f"{where}.init", f"expected one of {', '.join(INITS)}")
        buffers.append(BufferSpec(name, dtype, exprs, role, init))
    if len({b.name for b in buffers}) != len(buffers):
        raise ctx.fail("buffers", "duplicate buffer names")
    if not any(b.role in ("out", "inout") for b in buffers):
        raise ctx.fail("buffers", "at least one buffer must have role out or inout")
    return tuple(buffers)


def _dim3(ctx: _Ctx, value: Any, where: str, names: set[str]) -> tuple:
    items = value if isinstance(value, list) else [value]
    if not 1 <= len(items) <= 3:
        raise ctx.fail(where, "expected 1 to 3 expressions")
    return tuple(parse_expr(ctx.path, f"{where}[{j}]" if len(items) > 1 else where, v, names)
                 for j, v in enumerate(items))


def _launch(ctx: _Ctx, item: dict, where: str, kernels: dict[str, KernelSpec],
            buffers: tuple[BufferSpec, ...], names: set[str]) -> LaunchSpec:
    _no_unknown(ctx, item, where, {"kernel", "grid", "block", "shared_bytes", "args", "signature"})
    kernel_name = ctx.get(item, "kernel", f"{where}.kernel", str)
    if kernel_name in kernels:
        params: tuple[Param, ...] | None = kernels[kernel_name].params
    elif "signature" in item:
        try:
            params = parse_signature(ctx.get(item, "signature", f"{where}.signature", str))
        except ValueError as exc:
            raise ctx.fail(f"{where}.signature", str(exc)) from None
    elif kernels:
        raise ctx.fail(f"{where}.kernel", f"{kernel_name!r} is not declared in [[kernels]]")
    else:
        params = None  # a baseline without a signature: inferred from its args
    grid = _dim3(ctx, ctx.get(item, "grid", f"{where}.grid", (str, int, list)), f"{where}.grid", names)
    block = _dim3(ctx, ctx.get(item, "block", f"{where}.block", (str, int, list)), f"{where}.block", names)
    shared = parse_expr(ctx.path, f"{where}.shared_bytes", item.get("shared_bytes", 0), names)
    args = ctx.get(item, "args", f"{where}.args", list)
    if params is not None and len(args) != len(params):
        raise ctx.fail(f"{where}.args", f"{kernel_name} takes {len(params)} arguments, got {len(args)}")
    by_name = {b.name: b for b in buffers}
    out = []
    for j, arg in enumerate(args):
        field_ = f"{where}.args[{j}]"
        is_buffer = isinstance(arg, str) and arg in by_name
        if params is None:
            param = (Param(f"p{j}", _ctype_of(by_name[arg].dtype), True, False) if is_buffer
                     else Param(f"p{j}", "auto", False, False))  # int or float, by value
        else:
            param = params[j]
        if param.pointer:
            if not is_buffer:
                raise ctx.fail(field_, f"parameter {param.name!r} is a pointer: expected a buffer name, got {arg!r}")
            if POINTER_CTYPES[param.ctype] != by_name[arg].dtype:
                raise ctx.fail(field_, f"buffer {arg!r} is {by_name[arg].dtype}, parameter {param.name!r} is {param.ctype}*")
            out.append(ArgSpec(param, arg, None))
        else:
            out.append(ArgSpec(param, None, parse_expr(ctx.path, field_, arg, names)))
    return LaunchSpec(kernel_name, grid, block, shared, tuple(out))


def _no_unknown(ctx: _Ctx, item: dict, where: str, allowed: set[str]) -> None:
    unknown = sorted(set(item) - allowed)
    if unknown:
        raise ctx.fail(f"{where}.{unknown[0]}", "unknown field")


def _ctype_of(dtype: str) -> str:
    return next(c for c, d in POINTER_CTYPES.items() if d == dtype)


def _benchmark(ctx: _Ctx, table: dict, cases: tuple[Case, ...], buffers: tuple[BufferSpec, ...],
               names: set[str]) -> BenchmarkSpec:
    bytes_expr = flops_expr = floor_expr = None
    if "floor_bytes" in table:
        floor_expr = parse_expr(ctx.path, "benchmark.floor_bytes", table["floor_bytes"], names)
    if "bytes" in table:
        bytes_expr = parse_expr(ctx.path, "benchmark.bytes", table["bytes"], names)
    if "flops" in table:
        flops_expr = parse_expr(ctx.path, "benchmark.flops", table["flops"], names)
    baselines = []
    for name, item in ctx.get(table, "baselines", "benchmark.baselines", dict, default={}).items():
        where = f"benchmark.baselines.{name}"
        if not isinstance(item, dict):
            raise ctx.fail(where, "expected a table")
        baselines.append(_baseline(ctx, name, item, where, buffers, names))
    unknown = sorted(set(table) - {"sizes", "cases", "bytes", "flops", "floor_bytes", "baselines"})
    if unknown:
        raise ctx.fail(f"benchmark.{unknown[0]}", "unknown field")
    return BenchmarkSpec(cases, bytes_expr, flops_expr, tuple(baselines), floor_expr)


def _baseline(ctx: _Ctx, name: str, item: dict, where: str, buffers: tuple[BufferSpec, ...],
              names: set[str]) -> BaselineSpec:
    max_n = ctx.get(item, "max_n", f"{where}.max_n", int, default=None)
    if "python" in item:
        return BaselineSpec(name, python=ctx.get(item, "python", f"{where}.python", str), max_n=max_n)
    source = ctx.path.parent / ctx.get(item, "source", f"{where}.source", str)
    if not source.is_file():
        raise ctx.fail(f"{where}.source", f"file not found: {source.name}")
    launches = tuple(_launch(ctx, launch, f"{where}.launch[{i}]", {}, buffers, names)
                     for i, launch in enumerate(_list_of_tables(ctx, item, "launch", f"{where}.launch")))
    return BaselineSpec(name, source=source, launches=launches, max_n=max_n)


def _limits(ctx: _Ctx, data: dict) -> Limits:
    table = ctx.get(data, "limits", "limits", dict, default={})
    values = {}
    for key in ("compile_s", "run_s", "bench_s"):
        value = ctx.get(table, key, f"limits.{key}", (int, float), default=getattr(Limits, key))
        if value <= 0:
            raise ctx.fail(f"limits.{key}", "must be > 0")
        values[key] = float(value)
    return Limits(**values)


def load_spec(path: Path | str, lesson_dir: Path | None = None) -> Exercise:
    """Load and validate one `exercise.toml`. Raises SpecError."""
    path = Path(path).resolve()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError(path, "", "file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(path, "", f"invalid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise SpecError(path, "", "not UTF-8 text") from None
    return build_exercise(path, data, lesson_dir or path.parent.parent.parent)
