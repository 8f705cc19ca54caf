"""Cross-entropy with its gradient: inputs, float64 reference, error scales, CuPy baseline."""

from __future__ import annotations

import numpy as np


def generate(case: dict, rng: np.random.Generator) -> dict[str, np.ndarray]:
    rows, vocab = int(case["rows"]), int(case["vocab"])
    # Row offsets up to 120: expf() of such logits overflows float32 (> 88.7), so a
    # kernel that does not subtract the row max gets inf. Row 0 always gets one.
    offsets = rng.uniform(-40.0, 120.0, size=(rows, 1))
    offsets[0, 0] = rng.uniform(95.0, 120.0)
    logits = rng.standard_normal((rows, vocab)) * 2.0 + offsets
    # one dominant logit per row, 14 to 20 above the row's offset
    top = rng.integers(0, vocab, size=rows)
    logits[np.arange(rows), top] = offsets[:, 0] + rng.uniform(14.0, 20.0, size=rows)
    targets = rng.integers(0, vocab, size=rows)
    if rows > 1:
        targets[1] = top[1]  # one row whose target is the likely token (a small loss)
    if vocab > 1:  # never the dominant one elsewhere: its loss is not near zero
        clash = (targets == top) & (np.arange(rows) != 1)
        targets[clash] = (top[clash] + 1) % vocab
    return {"logits": logits.astype(np.float32), "targets": targets.astype(np.int32)}


def reference(inputs: dict[str, np.ndarray], case: dict) -> dict[str, np.ndarray]:
    x = inputs["logits"].astype(np.float64)
    rows = x.shape[0]
    t = inputs["targets"].astype(np.int64)
    m = x.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=1, keepdims=True))
    p = np.exp(x - lse)
    p[np.arange(rows), t] -= 1.0
    return {"loss": lse[:, 0] - x[np.arange(rows), t], "grad": p / rows}


def error_scale(inputs: dict[str, np.ndarray], case: dict) -> dict[str, np.ndarray]:
    """The loss is a difference of numbers as large as the row's logits: float32
    resolves them to about 1e-7 of their size, so its error scales with them.
    The gradient's entries are probabilities divided by rows."""
    x = np.abs(inputs["logits"].astype(np.float64))
    return {"loss": x.max(axis=1) + 1.0, "grad": np.full(x.shape, 1.0 / x.shape[0])}


def framework(inputs: dict, case: dict) -> dict:
    """The formula in CuPy: max, log-sum-exp, gather, softmax, scatter (several kernels)."""
    import cupy

    x, t = inputs["logits"], inputs["targets"]
    rows = x.shape[0]
    m = x.max(axis=1, keepdims=True)
    lse = m + cupy.log(cupy.exp(x - m).sum(axis=1, keepdims=True))
    r = cupy.arange(rows)
    p = cupy.exp(x - lse)
    p[r, t] -= 1.0
    return {"loss": lse[:, 0] - x[r, t], "grad": p / rows}
