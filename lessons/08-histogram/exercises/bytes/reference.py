"""Trusted inputs, reference and framework baseline for histogram.bytes.

The judge may pass a cupy Generator and cupy arrays for large benchmark sizes,
so generate() uses only what numpy and cupy share.
"""

from __future__ import annotations

import numpy as np

HOT_BYTE = 200      # the value of skewed data: >= 128, so a signed char index breaks it
HOT_SHARE = 0.9     # skewed data: 90% of the bytes are HOT_BYTE


def generate(case, rng):
    n = int(case["N"])
    # every byte value equally likely (random() < 1, so * 256 stays below 256)
    uniform = (rng.random(n, dtype=np.float32) * np.float32(256.0)).astype(np.int32)
    if case["data"] == "uniform":
        return {"data": uniform.astype(np.uint8)}
    if case["data"] != "skewed":
        raise ValueError(f"unknown data {case['data']!r}")
    hot = (rng.random(n, dtype=np.float32) < np.float32(HOT_SHARE)).astype(np.int32)
    return {"data": (uniform + (HOT_BYTE - uniform) * hot).astype(np.uint8)}


def reference(inputs, case):
    data = inputs["data"]
    xp = np if isinstance(data, np.ndarray) else _cupy()
    return {"bins": xp.bincount(data, minlength=256).astype(np.float64)}


def framework(inputs, case):
    import cupy

    return {"bins": cupy.bincount(inputs["data"], minlength=256)}


def _cupy():
    import cupy

    return cupy
