"""Trusted inputs, fp64 reference and framework baseline for elementwise.saxpy.

The judge may pass a cupy Generator and cupy arrays for large benchmark sizes,
so only methods numpy and cupy share are used.
"""

from __future__ import annotations

import numpy as np


def generate(case, rng):
    # Positive x and y (and positive a in every case): a*x + y never cancels,
    # so a relative tolerance holds; y is never left unchanged by a correct kernel.
    n = int(case["N"])
    x = rng.random(n, dtype=np.float32) * np.float32(2.0) + np.float32(0.5)
    y = rng.random(n, dtype=np.float32) + np.float32(0.25)
    return {"x": x, "y": y}


def reference(inputs, case):
    a = float(case["a"])
    return {"y": a * inputs["x"].astype(np.float64) + inputs["y"].astype(np.float64)}


def framework(inputs, case):
    """CuPy's `a * x + y` in float32 (a multiply and an add, into a new array;
    the inputs are left as they are)."""
    import cupy

    return {"y": cupy.float32(case["a"]) * inputs["x"] + inputs["y"]}
