"""Argmax per row (greedy decoding): inputs with a tied maximum, the exact reference, CuPy."""

from __future__ import annotations

import numpy as np


def generate(case: dict, rng: np.random.Generator) -> dict[str, np.ndarray]:
    rows, vocab = int(case["rows"]), int(case["vocab"])
    # Logits on a grid of 1/4 around a row offset from -30 to 30 (whole rows
    # negative: a maximum started at 0 never moves). The maximum appears twice,
    # at columns a < b with a >= 1: the answer is a (never 0, never the last).
    offsets = np.round(rng.uniform(-30.0, 30.0, size=(rows, 1)) * 4) / 4
    offsets[0, 0] = np.round(rng.uniform(-30.0, -21.0) * 4) / 4  # row 0: every logit negative
    logits = np.round(rng.standard_normal((rows, vocab)) * 12) / 4 + offsets
    logits[logits == 0.0] = 0.25  # no zero value: an unwritten output (0) never passes
    a = rng.integers(1, vocab - 1, size=rows)
    b = a + 1 + (rng.integers(0, 1 << 30, size=rows) % (vocab - 1 - a))
    top = offsets[:, 0] + 20.0
    top[top == 0.0] = 0.25
    logits[np.arange(rows), a] = top
    logits[np.arange(rows), b] = top
    return {"logits": (logits + 0.0).astype(np.float32)}


def reference(inputs: dict[str, np.ndarray], case: dict) -> dict[str, np.ndarray]:
    x = inputs["logits"]
    idx = np.argmax(x, axis=1)  # numpy: the first occurrence of the maximum
    return {"index": idx.astype(np.float64), "value": x[np.arange(x.shape[0]), idx].astype(np.float64)}


def framework(inputs: dict, case: dict) -> dict:
    """CuPy: argmax (first occurrence), then a gather."""
    import cupy

    x = inputs["logits"]
    idx = x.argmax(axis=1)
    return {"index": idx.astype(cupy.int32), "value": x[cupy.arange(x.shape[0]), idx]}
