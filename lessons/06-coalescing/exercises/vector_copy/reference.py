"""Trusted inputs, fp64 reference and framework baseline for coalescing.vector_copy.

Only what numpy and cupy share is used: the judge may pass a cupy Generator
and cupy arrays for the large benchmark sizes.
"""

from __future__ import annotations

import numpy as np


def generate(case, rng):
    # `in` in [1, 3), `out` in [-3, -1): a copied element, a missed one (still
    # negative) and one written outside the view (turned positive) all show.
    n = int(case["N"]) + 4
    values = rng.random(n, dtype=np.float32) * np.float32(2.0) + np.float32(1.0)
    before = -(rng.random(n, dtype=np.float32) * np.float32(2.0) + np.float32(1.0))
    return {"in": values, "out": before}


def reference(inputs, case):
    start, stop = int(case["offset"]), int(case["offset"]) + int(case["N"])
    out = inputs["out"].astype(np.float64)
    out[start:stop] = inputs["in"][start:stop].astype(np.float64)
    return {"out": out}


def framework(inputs, case):
    start, stop = int(case["offset"]), int(case["offset"]) + int(case["N"])
    inputs["out"][start:stop] = inputs["in"][start:stop]
    return {"out": inputs["out"]}
