"""Trusted inputs, reference and framework baseline for scan.rows.

The values are those of scan.inclusive: integers in [-4, 12] without 0, so
out[r, 0] is never 0 and a missing carry always shows; the sums are exact.
"""

from __future__ import annotations

import numpy as np


def generate(case, rng):
    rows, cols = int(case["rows"]), int(case["cols"])
    values = (rng.random(rows * cols, dtype=np.float32) * np.float32(16.0)).astype(np.int32) - np.int32(4)
    return {"in": (values + (values >= 0).astype(np.int32)).reshape(rows, cols)}  # [-4, -1] and [1, 12]


def reference(inputs, case):
    return {"out": inputs["in"].astype(np.float64).cumsum(axis=1)}


def framework(inputs, case):
    import cupy

    return {"out": cupy.cumsum(inputs["in"], axis=1, dtype=cupy.int32)}
