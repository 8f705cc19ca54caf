"""Trusted inputs, reference and framework baseline for radix-sort.bitonic_segments.

Keys cover the whole uint32 range (a signed comparison puts half of them
first); "dups" draws them from 37 values. The last key is 0xFFFFFFF7, so no
case is all zeros.
"""

from __future__ import annotations

import numpy as np

SEGMENT = 1024
SPAN = 4294967296.0  # 2^32


def generate(case, rng):
    n = int(case["N"])
    if case.get("data") == "dups":
        pool = (rng.random(37, dtype=np.float64) * SPAN).astype(np.uint32)
        keys = pool[(rng.random(n, dtype=np.float64) * 37).astype(np.int64)]
    else:
        keys = (rng.random(n, dtype=np.float64) * SPAN).astype(np.uint32)
    keys[n - 1] = np.uint32(0xFFFFFFF7)
    return {"keys": keys}


def reference(inputs, case):
    keys = np.asarray(inputs["keys"])
    whole = keys.size // SEGMENT * SEGMENT
    head = np.sort(keys[:whole].reshape(-1, SEGMENT), axis=1).reshape(-1)
    return {"out": np.concatenate((head, np.sort(keys[whole:]))).astype(np.float64)}


def framework(inputs, case):
    import cupy

    keys = inputs["keys"]
    whole = keys.size // SEGMENT * SEGMENT
    head = cupy.sort(keys[:whole].reshape(-1, SEGMENT), axis=1).reshape(-1)
    if whole == keys.size:  # the benchmark sizes: whole segments only
        return {"out": head}
    return {"out": cupy.concatenate((head, cupy.sort(keys[whole:])))}
