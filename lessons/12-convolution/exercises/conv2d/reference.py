"""Trusted inputs, fp64 reference and framework baseline for convolution.conv2d.

Only what numpy and cupy share is used: the judge may pass a cupy Generator
and cupy arrays for the large benchmark sizes.
"""

from __future__ import annotations

import numpy as np


def generate(case, rng):
    # x in [1, 2) and taps in [0.25, 1.25), all different: every output is at
    # least 0.25; a dropped halo, clamped padding or a flipped filter shows.
    h, w, k = int(case["H"]), int(case["W"]), int(case["K"])
    x = rng.random((h, w), dtype=np.float32) + np.float32(1.0)
    taps = rng.random((k, k), dtype=np.float32) + np.float32(0.25)
    return {"x": x, "w": taps}


def reference(inputs, case):
    x = np.asarray(inputs["x"], dtype=np.float64)
    w = np.asarray(inputs["w"], dtype=np.float64)
    h, width = x.shape
    k = w.shape[0]
    r = k // 2
    padded = np.zeros((h + 2 * r, width + 2 * r))
    padded[r:r + h, r:r + width] = x
    y = np.zeros((h, width))
    for i in range(k):          # tap (i, j) multiplies x[row + i - r][col + j - r]
        for j in range(k):
            y += w[i, j] * padded[i:i + h, j:j + width]
    return {"y": y}


def framework(inputs, case):
    from cupyx.scipy import ndimage

    # ndimage convolves (flips the filter); flipping it back gives our correlation
    return {"y": ndimage.convolve(inputs["x"], inputs["w"][::-1, ::-1], mode="constant", cval=0.0)}
