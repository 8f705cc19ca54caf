"""Trusted inputs, reference and framework baseline for radix-sort.lsd_u32.

Keys cover the whole uint32 range (so about half have the top bit set and a
signed comparison puts them first); the case "dups" draws them from 37
values, so many keys tie on a digit and on the whole key.
"""

from __future__ import annotations

import numpy as np

SPAN = 4294967296.0  # 2^32


def generate(case, rng):
    n = int(case["N"])
    if case.get("data") == "dups":
        pool = (rng.random(37, dtype=np.float64) * SPAN).astype(np.uint32)
        pick = (rng.random(n, dtype=np.float64) * 37).astype(np.int64)
        keys = pool[pick]
    else:
        keys = (rng.random(n, dtype=np.float64) * SPAN).astype(np.uint32)
    keys[n - 1] = np.uint32(0xFFFFFFF7)  # never all zeros; a top-bit key in every case
    return {"keys": keys}


def reference(inputs, case):
    return {"out": np.sort(inputs["keys"], kind="stable").astype(np.float64)}


def framework(inputs, case):
    import cupy

    return {"out": cupy.sort(inputs["keys"])}
