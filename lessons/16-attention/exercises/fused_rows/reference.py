"""Attention fused per row: the inputs, float64 reference and CuPy baseline are
the three-kernel exercise's (`../three_kernels/reference.py`, loaded by path as
the judge loads this file); only the kernel's plan differs."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def _load_three_kernels_reference():  # noqa: ANN202 - a module
    path = Path(__file__).resolve().parent.parent / "three_kernels" / "reference.py"
    spec = importlib.util.spec_from_file_location("kdojo_attention_three_kernels_shared", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_shared = _load_three_kernels_reference()
generate, reference, framework = _shared.generate, _shared.reference, _shared.framework
