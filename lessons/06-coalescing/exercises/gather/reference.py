"""Trusted inputs, fp64 reference and framework baseline for coalescing.gather.

Only what numpy and cupy share is used: the judge may pass a cupy Generator
and cupy arrays for the large benchmark sizes.
"""

from __future__ import annotations

import numpy as np


def array_module(array):
    """numpy, or cupy for a cupy array (the generator decides where inputs live)."""
    if type(array).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def indices(n: int, pattern: str, rng) -> np.ndarray:
    """int32 indices in [0, n). "random": uniform, with repeats; "local": each
    full group of 32 is permuted inside itself (i XOR a random 5-bit mask), the
    last partial group reads itself."""
    if pattern == "random":
        idx = (rng.random(n, dtype=np.float64) * n).astype(np.int64)
        return (idx - (idx >= n)).astype(np.int32)  # 1.0 * n cannot occur, but stay in range
    masks = (rng.random((n + 31) // 32, dtype=np.float32) * 32).astype(np.int64) % 32
    i = array_module(masks).arange(n, dtype=np.int64)
    swapped = i ^ masks.repeat(32)[:n]
    return (swapped * (swapped < n) + i * (swapped >= n)).astype(np.int32)


def generate(case, rng):
    # Values in [0.5, 2.5): never 0, so an element left unwritten (the
    # sentinel) or read from the wrong place always shows.
    n = int(case["N"])
    values = rng.random(n, dtype=np.float32) * np.float32(2.0) + np.float32(0.5)
    return {"in": values, "idx": indices(n, str(case["pattern"]), rng)}


def reference(inputs, case):
    return {"out": inputs["in"].astype(np.float64)[inputs["idx"]]}


def framework(inputs, case):
    import cupy

    return {"out": cupy.take(inputs["in"], inputs["idx"])}
