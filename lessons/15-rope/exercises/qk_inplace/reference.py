"""RoPE in place on q and k (bf16, half-split): inputs, float64 reference, CuPy baseline.

bfloat16 buffers travel as uint16 bit patterns (kernels/buffers.py): `bf16_bits`
rounds float values to them (nearest even), `bf16_values` widens them back.
"""

from __future__ import annotations

import numpy as np

THETA = 10000.0  # the launch plan passes 10000.0 to the kernel


def bf16_bits(values):
    bits = values.astype(np.float32).view(np.uint32)
    return ((bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def generate(case: dict, rng) -> dict:
    t, d = int(case["tokens"]), int(case["head_dim"])
    out = {}
    for name, heads in (("q", int(case["heads"])), ("k", int(case["kv_heads"]))):
        # magnitudes 0.5-2 with random signs: a pair never vanishes, so a
        # rotation by the wrong angle moves both of its values visibly
        size = (t, heads, d)
        values = rng.uniform(0.5, 2.0, size=size) * np.where(rng.random(size) < 0.5, -1.0, 1.0)
        out[name] = bf16_bits(values)
    return out


def angles(case: dict):
    """(tokens, head_dim / 2) angles in float64: (offset + token) * theta^(-2i / d)."""
    t, d = int(case["tokens"]), int(case["head_dim"])
    pos = np.arange(t, dtype=np.float64).reshape(t, 1) + int(case["offset"])
    inv_freq = THETA ** (-(2.0 * np.arange(d // 2, dtype=np.float64)) / d)
    return pos * inv_freq.reshape(1, d // 2)


def rotate(x, cos, sin):
    """Half-split rotation of the last axis; cos, sin broadcast over heads."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)


def reference(inputs: dict, case: dict) -> dict:
    a = angles(case)[:, None, :]
    cos, sin = np.cos(a), np.sin(a)
    return {name: rotate(bf16_values(inputs[name]).astype(np.float64), cos, sin) for name in ("q", "k")}


def framework(inputs: dict, case: dict) -> dict:
    """The formula in CuPy: a cos/sin table, then slices, products and a concatenation."""
    import cupy

    t, d = int(case["tokens"]), int(case["head_dim"])
    half = d // 2
    pos = cupy.arange(t, dtype=cupy.float32).reshape(t, 1, 1) + np.float32(int(case["offset"]))
    inv_freq = cupy.power(np.float32(THETA), -(2.0 * cupy.arange(half, dtype=cupy.float32)) / d)
    a = pos * inv_freq
    cos, sin = cupy.cos(a), cupy.sin(a)
    out = {}
    for name in ("q", "k"):
        x = bf16_values(inputs[name])
        x1, x2 = x[..., :half], x[..., half:]
        out[name] = bf16_bits(cupy.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1))
    return out
