"""Trusted inputs, fp64 reference and framework baseline for convolution.conv1d.

Only what numpy and cupy share is used: the judge may pass a cupy Generator
and cupy arrays for the large benchmark sizes.
"""

from __future__ import annotations

import numpy as np


def generate(case, rng):
    # x in [1, 2) and taps in [0.25, 1.25), all different: every output is at
    # least 0.25, a dropped tap or a flipped filter changes it, and padding
    # read as an edge value (clamp) shows near both ends.
    n, r = int(case["N"]), int(case["R"])
    x = rng.random(n, dtype=np.float32) + np.float32(1.0)
    w = rng.random(2 * r + 1, dtype=np.float32) + np.float32(0.25)
    return {"x": x, "w": w}


def reference(inputs, case):
    x = np.asarray(inputs["x"], dtype=np.float64)
    w = np.asarray(inputs["w"], dtype=np.float64)
    n, r = x.size, (w.size - 1) // 2
    padded = np.concatenate([np.zeros(r), x, np.zeros(r)])
    y = np.zeros(n)
    for k in range(2 * r + 1):  # tap k multiplies x[i + k - r]
        y += w[k] * padded[k:k + n]
    return {"y": y}


def framework(inputs, case):
    from cupyx.scipy import ndimage

    # ndimage convolves (flips the filter); flipping it back gives our correlation
    return {"y": ndimage.convolve1d(inputs["x"], inputs["w"][::-1], mode="constant", cval=0.0)}
