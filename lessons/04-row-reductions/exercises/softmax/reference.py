"""Row softmax: inputs, float64 reference and the CuPy baseline."""

from __future__ import annotations

import numpy as np


def generate(case: dict, rng: np.random.Generator) -> dict[str, np.ndarray]:
    rows, cols = int(case["rows"]), int(case["cols"])
    # Per-row offsets up to 120: exp() of such logits overflows float32 (> 88.7),
    # so a softmax that does not subtract the row max produces inf/NaN. Row 0
    # always gets a large offset so that even a one-row case catches that.
    offsets = rng.uniform(-40.0, 120.0, size=(rows, 1))
    offsets[0, 0] = rng.uniform(95.0, 120.0)
    x = rng.standard_normal((rows, cols)) * 4.0 + offsets
    return {"x": x.astype(np.float32)}


def reference(inputs: dict[str, np.ndarray], case: dict) -> dict[str, np.ndarray]:
    x = inputs["x"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}


def framework(inputs: dict, case: dict) -> dict:
    """Unfused CuPy softmax (max, exp, sum, divide: several kernels)."""
    import cupy

    x = inputs["x"]
    e = cupy.exp(x - x.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}
