"""Trusted inputs, fp64 reference, error model and framework baseline for reduction.block_sum.

The judge may pass a cupy Generator and cupy arrays for large benchmark sizes,
so only methods numpy and cupy share are used.
"""

from __future__ import annotations

import numpy as np


def generate(case, rng):
    # Normal values with standard deviation 4 around a random offset in
    # [0.5, 1.5): the sum grows with N, so a partial block, a missing, doubled
    # or out-of-bounds element or a zero result is visible; the offset differs
    # per input set, so a result kept from another call cannot match. The wide
    # spread matters: with nearly equal block sums (uniform [0, 2) values) the
    # float32 atomicAdds onto out[0] round the same way every time and drift
    # by ~1e-3 at N = 2^28 (measured on an H100); spread over several ulps,
    # the rounding errors cancel like a random walk.
    n = case["N"]
    offset = rng.random(1, dtype=np.float32) + np.float32(0.5)
    return {"in": rng.standard_normal(n, dtype=np.float32) * np.float32(4.0) + offset}


def reference(inputs, case):
    return {"out": inputs["in"].astype(np.float64).sum().reshape(1)}


def error_scale(inputs, case):
    # float32 rounding in the N/256 atomicAdds onto out[0] grows like
    # sqrt(number of adds) ulps of the total: allow 4 of those (~8 sigma).
    adds = max(case["N"] / 256, 1.0)
    total = abs(inputs["in"]).astype(np.float64).sum()
    return {"out": total * (4 * 2.0**-24 * adds**0.5)}


def framework(inputs, case):
    import cupy

    return {"out": cupy.sum(inputs["in"]).reshape(1)}
