"""Expected outputs that zeros would match: run the exercise's own `reference.py`
on every test case (no kernel, no judge) and refuse a case whose expected
output is ~0, since a kernel writing nothing would pass it."""

from __future__ import annotations

import importlib.util
import sys
import traceback
import uuid
from pathlib import Path
from types import ModuleType

import numpy as np

from app.authoring.report import LessonReport
from kernels.spec import Exercise


def _import(path: Path) -> ModuleType:
    # a fresh module each time (the judge caches per process; an author edits between runs)
    name = f"kdojo_validate_{uuid.uuid4().hex}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def check_outputs(exercise: Exercise, report: LessonReport) -> None:
    """Every test case's expected outputs, computed with a fixed seed."""
    from kernels.check import reference_is_trivial
    from kernels.plan import case_dict

    path = Path(exercise.reference_py_path)
    try:
        module = _import(path)
    except Exception as exc:  # noqa: BLE001 - the author's file: report it, do not crash
        report.error(path, "(import)", f"{type(exc).__name__}: {exc}")
        return
    for name in ("generate", "reference"):
        if not callable(getattr(module, name, None)):
            report.error(path, f"{name}()", "missing function")
            return
    constants = {c.name: c.default for c in exercise.constants}
    outputs = {b.name for b in exercise.buffers if b.role in ("out", "inout")}
    for index, case in enumerate(exercise.tests):
        cased = case_dict(case, constants)
        try:
            inputs = module.generate(cased, np.random.default_rng([20261123, index]))
            want = module.reference(inputs, cased)
            scales = module.error_scale(inputs, cased) if hasattr(module, "error_scale") else {}
        except Exception:  # noqa: BLE001
            last = traceback.format_exc().strip().splitlines()[-1]
            report.error(path, f"tests[{index}] ({case.label})", f"reference.py raised: {last}")
            continue
        for buffer in sorted(outputs):
            if buffer not in want:
                report.error(path, f"reference() for {case.label}", f"returns no {buffer!r}")
                continue
            if reference_is_trivial(np.asarray(want[buffer]), exercise.atol, scales.get(buffer, 1.0)):
                report.error(exercise.spec_path, f"tests[{index}] ({case.label})",
                             f"the expected {buffer!r} is ~0 (within atol): a kernel writing zeros would "
                             "pass; offset or scale the inputs in reference.py's generate()")
