"""broadcast.shuffle: lane 0 computes the mean of the first 4 elements of its
warp's block (the scale) and broadcasts it; each lane fetches its right-hand
neighbour with a shuffle-down by 1; output = (current + next) * scale for
lanes < 31 whose index is below size - 1, else current * scale.

Seed data (Mojo GPU Puzzles, puzzle 25): [2,4,6,8] then [1,3,5,7] repeated;
scale (2+4+6+8)/4 = 5; output [30,50,70,45,20,40,60,40,…,20,40,60,35].
The judge may pass a cupy Generator and cupy arrays for large benchmark sizes,
so only operations numpy and cupy share are used (through `_xp`).
"""

from __future__ import annotations

import numpy as np

WARP = 32
LEAD = 4  # elements whose mean is the scale


def _xp(array):
    if isinstance(array, np.ndarray):
        return np
    import cupy

    return cupy


def seed_input(size: int) -> np.ndarray:
    head = np.array([2, 4, 6, 8], dtype=np.float32)
    tail = np.resize(np.array([1, 3, 5, 7], dtype=np.float32), max(size - 4, 0))
    return np.concatenate([head, tail])[:size].astype(np.float32)


def generate(case, rng):
    size = int(case["size"])
    if case.get("data") == "seed":
        return {"input": seed_input(size)}
    # Positive values: no cancellation in current + next, so rtol holds.
    return {"input": rng.random(size, dtype=np.float32) * np.float32(3.5) + np.float32(0.5)}


def warp_heads(x, count: int, fill: float):
    """(warps, count): the first `count` elements of every warp's block, padded with fill."""
    xp = _xp(x)
    warps = -(-x.size // WARP)
    padded = xp.full(warps * WARP, fill, dtype=x.dtype)
    padded[:x.size] = x
    return padded.reshape(warps, WARP)[:, :count]


def combine(x):
    """output = (x[i] + x[i+1]) * scale, or x[i] * scale where there is no neighbour."""
    xp = _xp(x)
    size = x.size
    # The mean divides by 4 even when the last block holds fewer elements.
    scale = xp.repeat(warp_heads(x, LEAD, 0.0).sum(axis=1) / LEAD, WARP)[:size]
    index = xp.arange(size)
    has_neighbour = (index % WARP < WARP - 1) & (index < size - 1)
    following = xp.concatenate([x[1:], xp.zeros(1, dtype=x.dtype)])
    return xp.where(has_neighbour, (x + following) * scale, x * scale)


def reference(inputs, case):
    return {"output": combine(inputs["input"].astype(np.float64))}


def framework(inputs, case):
    """The same computation with CuPy array operations (float32)."""
    return {"output": combine(inputs["input"])}
