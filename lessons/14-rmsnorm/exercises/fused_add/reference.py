"""Fused residual add + RMSNorm in bf16: inputs, float64 reference, CuPy baseline.

bfloat16 buffers travel as uint16 bit patterns (kernels/buffers.py): `bf16_bits`
rounds float values to them (nearest even), `bf16_values` widens them back.
Only what numpy and cupy share is used, so `generate` also runs on the GPU.
"""

from __future__ import annotations

import numpy as np

EPS = 1e-5  # the launch plan passes 1e-5 to the kernel


def bf16_bits(values):
    bits = values.astype(np.float32).view(np.uint32)
    return ((bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def generate(case: dict, rng) -> dict:
    rows, cols = int(case["rows"]), int(case["cols"])
    kind = np.arange(rows).reshape(rows, 1) % 3
    # Every row has its own scale and a mean of -1.5..1.5 scales (so the mean
    # of h is never a stand-in for its root mean square). Kind 1 rows are tiny
    # (|h| ~ 1e-3: mean(h^2) ~ 1e-6 < eps, the square root must include eps);
    # kind 2 rows carry one dominant value, 40-80 times the others, as the
    # "massive activations" of real language models do.
    scale = rng.uniform(0.5, 2.0, size=(rows, 1))
    scale = np.where(kind == 1, scale * 1e-3, scale)
    mean = rng.uniform(-1.5, 1.5, size=(rows, 1))
    h = (rng.standard_normal((rows, cols)) + mean) * scale
    spike = np.arange(cols).reshape(1, cols) == (np.arange(rows).reshape(rows, 1) * 7919) % cols
    h = np.where((kind == 2) & spike, rng.uniform(40.0, 80.0, size=(rows, 1)) * scale, h)
    # keep ordinary values at least 0.05 scales from zero: a 1x1 case whose h
    # rounds into the tolerance of 0 could not tell a kernel that writes zeros
    # from a correct one (the judge refuses such a case)
    near_zero = (kind != 1) & (abs(h) < 0.05 * scale)
    h = np.where(near_zero, h + np.where(h < 0, -0.1, 0.1) * scale, h)
    # split h into residual (the stream so far) and x (this layer's output)
    share = rng.uniform(0.2, 0.8, size=(rows, cols))
    residual = bf16_bits(h * share)
    x = bf16_bits(h - bf16_values(residual))
    return {"x": x, "residual": residual, "weight": bf16_bits(rng.uniform(0.5, 1.5, size=cols))}


def reference(inputs: dict, case: dict) -> dict:
    h = bf16_values(inputs["x"]).astype(np.float64) + bf16_values(inputs["residual"]).astype(np.float64)
    rms = np.sqrt((h * h).mean(axis=1, keepdims=True) + EPS)
    return {"residual": h, "out": h / rms * bf16_values(inputs["weight"]).astype(np.float64)}


def framework(inputs: dict, case: dict) -> dict:
    """The same formula in CuPy, unfused (add, square, mean, normalise, scale: several kernels)."""
    import cupy

    h = bf16_values(inputs["x"]) + bf16_values(inputs["residual"])
    rstd = 1.0 / cupy.sqrt((h * h).mean(axis=1, keepdims=True) + np.float32(EPS))
    return {"residual": bf16_bits(h), "out": bf16_bits(h * rstd * bf16_values(inputs["weight"]))}
