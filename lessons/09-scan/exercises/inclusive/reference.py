"""Trusted inputs, reference and framework baseline for scan.inclusive.

Values are integers in [-4, 12] without 0: mixed in sign, so a prefix sum is
not just a count; never 0, so out[0] is never 0 and a kernel writing nothing
cannot pass; 4.25 on average, so a missing carry always shows, and the sums
stay near 4.25 * i, far inside int32 at 2^28 elements (exact comparisons).
"""

from __future__ import annotations

import numpy as np


def generate(case, rng):
    n = int(case["N"])
    values = (rng.random(n, dtype=np.float32) * np.float32(16.0)).astype(np.int32) - np.int32(4)
    return {"in": values + (values >= 0).astype(np.int32)}  # [-4, -1] and [1, 12]


def reference(inputs, case):
    return {"out": inputs["in"].astype(np.float64).cumsum()}


def framework(inputs, case):
    import cupy

    # int32 out, as the kernel writes (cumsum's default for int32 input is int64,
    # which would write twice the bytes)
    return {"out": cupy.cumsum(inputs["in"], dtype=cupy.int32)}
