"""Top-k per row: inputs with many ties, the exact reference and the CuPy baseline."""

from __future__ import annotations

import numpy as np


def generate(case: dict, rng: np.random.Generator) -> dict[str, np.ndarray]:
    rows, vocab = int(case["rows"]), int(case["vocab"])
    # Logits on a grid of 1/4: equal values are common, also at the k-th place,
    # so the tie rule (lower column first) decides indices. Row offsets from -30
    # to 30 make whole rows negative (the key's sign handling) or positive.
    offsets = np.round(rng.uniform(-30.0, 30.0, size=(rows, 1)) * 4) / 4
    logits = np.round(rng.standard_normal((rows, vocab)) * 12) / 4 + offsets
    # one dominant logit per row: the argmax is not a tie
    top = rng.integers(0, vocab, size=rows)
    logits[np.arange(rows), top] = offsets[:, 0] + 20.0
    logits = logits + 0.0  # no -0.0: it equals +0.0 as a value
    logits[logits == 0.0] = 0.25  # no zero value: an unwritten output (0) never passes
    return {"logits": logits.astype(np.float32)}


def order(logits: np.ndarray) -> np.ndarray:
    """Column order of each row: value descending, then column ascending."""
    cols = np.broadcast_to(np.arange(logits.shape[1]), logits.shape)
    return np.lexsort((cols, -logits.astype(np.float64)), axis=1)


def reference(inputs: dict[str, np.ndarray], case: dict) -> dict[str, np.ndarray]:
    x = inputs["logits"]
    k = int(case["k"])
    idx = order(x)[:, :k]
    return {"values": np.take_along_axis(x, idx, axis=1).astype(np.float64), "indices": idx.astype(np.float64)}


def framework(inputs: dict, case: dict) -> dict:
    """CuPy: argpartition finds the k largest, a sort of those k orders them.
    Its tie order is not ours, so the bench compares values only."""
    import cupy

    x, k = inputs["logits"], int(case["k"])
    part = cupy.argpartition(-x, k - 1, axis=1)[:, :k]
    vals = cupy.take_along_axis(x, part, axis=1)
    sub = cupy.argsort(-vals, axis=1)
    return {"values": cupy.take_along_axis(vals, sub, axis=1)}
