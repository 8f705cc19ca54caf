"""Trusted inputs, fp64 reference and framework baseline for compaction.partition.

Values are (k + 0.5) / 8 - 4 for k in 0..63: never 0, exact in float32, and
the thresholds of the cases are among them, so `>=` instead of `>` shows. The
last element is always kept, so no case keeps nothing and a dropped tail shows.
"""

from __future__ import annotations

import numpy as np

TOP = np.float32(3.9375)  # the largest value, above every threshold


def generate(case, rng):
    n = int(case["N"])
    k = (rng.random(n, dtype=np.float32) * np.float32(64)).astype(np.int32)
    values = ((k.astype(np.float32) + np.float32(0.5)) / np.float32(8) - np.float32(4)).astype(np.float32)
    values[n - 1] = TOP
    return {"in": values}


def reference(inputs, case):
    x = inputs["in"].astype(np.float64)
    keep = x > float(case["threshold"])
    return {"out": np.concatenate((x[keep], x[~keep])),
            "count": np.array([int(keep.sum())], dtype=np.float64)}


def framework(inputs, case):
    # the cupy way: a mask, then two boolean selections and a concatenation
    import cupy

    a = inputs["in"]
    keep = a > np.float32(case["threshold"])
    return {"out": cupy.concatenate((a[keep], a[~keep]))}
