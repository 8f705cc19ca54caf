"""Turning a spec plus one case into concrete things: the case dict, buffer shapes,
resolved launches, and the exercise's trusted `reference.py` module."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Any

from kernels.targets.base import Launch, LaunchArg
from kernels.expr import Expr
from kernels.spec import SCALAR_CTYPES, Case, Exercise, LaunchSpec

_MODULES: dict[str, ModuleType] = {}


def case_dict(case: Case, constants: dict[str, int]) -> dict[str, Any]:
    """What `generate`/`reference` receive: dims, params and `constants`."""
    values = case.env
    values["constants"] = dict(constants)
    return values


def env_for(case: Case, constants: dict[str, int]) -> dict[str, Any]:
    """Names expressions may read: dims, numeric params, constants."""
    env = {k: v for k, v in case.values if isinstance(v, (int, float))}
    env.update(constants)
    return env


def buffer_shapes(exercise: Exercise, env: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    return {b.name: tuple(e.evaluate_int(env) for e in b.shape) for b in exercise.buffers}


def _dim3(exprs: tuple[Expr, ...], env: dict[str, Any]) -> tuple[int, int, int]:
    values = [e.evaluate_int(env) for e in exprs] + [1, 1]
    return (values[0], values[1], values[2])


def resolve_launches(launches: tuple[LaunchSpec, ...], env: dict[str, Any]) -> list[Launch]:
    """Evaluate every expression of a launch plan for one case."""
    resolved = []
    for spec in launches:
        args = []
        for arg in spec.args:
            if arg.buffer is not None:
                args.append(LaunchArg(arg.param.name, arg.param.ctype + "*", buffer=arg.buffer))
                continue
            assert arg.expr is not None
            value = arg.expr.evaluate(env)
            ctype = arg.param.ctype
            if ctype == "auto":
                ctype = "float" if isinstance(value, float) else "int"
            if SCALAR_CTYPES.get(ctype, "").startswith(("int", "uint")):
                value = int(value)
            else:
                value = float(value)
            args.append(LaunchArg(arg.param.name, ctype, value=value))
        resolved.append(Launch(spec.kernel, _dim3(spec.grid, env), _dim3(spec.block, env),
                               spec.shared_bytes.evaluate_int(env), tuple(args)))
    return resolved


def load_reference(exercise: Exercise) -> ModuleType:
    """Import the exercise's trusted `reference.py` (once per process)."""
    key = str(exercise.reference_py_path)
    if key not in _MODULES:
        name = "kdojo_reference_" + exercise.id.replace(".", "_").replace("-", "_")
        spec = importlib.util.spec_from_file_location(name, exercise.reference_py_path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        for required in ("generate", "reference"):
            if not callable(getattr(module, required, None)):
                raise AttributeError(f"{exercise.reference_py_path}: missing function {required}()")
        _MODULES[key] = module
    return _MODULES[key]
