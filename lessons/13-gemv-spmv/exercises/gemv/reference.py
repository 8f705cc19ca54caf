"""Trusted inputs, fp64 reference and framework baseline for gemv-spmv.gemv.

Only what numpy and cupy share is used: the judge may pass a cupy Generator
and cupy arrays for the large benchmark sizes.
"""

from __future__ import annotations

import numpy as np


def generate(case, rng):
    # A in [0.5, 1.5) and x in [1, 2): every y is at least K / 2, so a lost
    # row tail, a lost range of K or a lost lane shows.
    m, k = int(case["M"]), int(case["K"])
    a = rng.random((m, k), dtype=np.float32) + np.float32(0.5)
    x = rng.random(k, dtype=np.float32) + np.float32(1.0)
    return {"A": a, "x": x}


def reference(inputs, case):
    a = np.asarray(inputs["A"], dtype=np.float64)
    x = np.asarray(inputs["x"], dtype=np.float64)
    return {"y": a @ x}


def framework(inputs, case):
    return {"y": inputs["A"] @ inputs["x"]}
