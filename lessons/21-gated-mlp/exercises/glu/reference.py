"""Fused gated-MLP activations (SwiGLU, GeGLU) in bf16: inputs, float64 reference, CuPy baseline.

gate_up is bf16 [rows, 2 * hidden]: row r holds gate (columns 0..hidden-1) then
up (columns hidden..2*hidden-1), what one GEMM with the weights [W_gate; W_up]
stacked writes. out is bf16 [rows, hidden]: out = act(gate) * up, with
act = SiLU (act = 0, SwiGLU) or the exact, erf-based GELU (act = 1, GeGLU).
bfloat16 buffers travel as uint16 bit patterns (kernels/buffers.py).
"""

from __future__ import annotations

import math

import numpy as np


def bf16_bits(values):
    bits = values.astype(np.float32).view(np.uint32)
    return ((bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def generate(case: dict, rng) -> dict:
    rows, hidden = int(case["rows"]), int(case["hidden"])
    kind = np.arange(rows).reshape(rows, 1) % 3
    # kind 0: ordinary gates (sd 2: GELU's tail at -3 is well visited);
    # kind 1: "massive activations", a few gates of magnitude 90-120 either way
    #   (exp(90) overflows a float);
    # kind 2: gates in -6..-2, where tanh-GELU and erf-GELU differ by 5-100%.
    gate = rng.standard_normal((rows, hidden)) * 2.0
    spikes = (rng.random((rows, hidden)) < 0.05) | (np.arange(hidden) == 0)
    big = rng.uniform(90.0, 120.0, size=(rows, hidden)) * np.where(rng.random((rows, hidden)) < 0.5, -1.0, 1.0)
    gate = np.where((kind == 1) & spikes, big, gate)
    gate = np.where(kind == 2, rng.uniform(-6.0, -2.0, size=(rows, hidden)), gate)
    # up never near 0, either sign, so a swapped gate and up always shows
    up = rng.uniform(0.5, 2.0, size=(rows, hidden)) * np.where(rng.random((rows, hidden)) < 0.5, -1.0, 1.0)
    return {"gate_up": bf16_bits(np.concatenate([gate, up], axis=1))}


def _halves(inputs: dict, case: dict):
    hidden = int(case["hidden"])
    v = bf16_values(inputs["gate_up"]).astype(np.float64)
    return v[:, :hidden], v[:, hidden:]


def silu(g):
    return g / (1.0 + np.exp(-np.clip(g, -700.0, 700.0)))


def gelu(g):
    """0.5 g (1 + erf(g / sqrt 2)), as 0.5 g erfc(-g / sqrt 2): no cancellation in the far negative tail."""
    erfc = np.vectorize(math.erfc, otypes=[np.float64])
    return 0.5 * g * erfc(-g / math.sqrt(2.0))


def reference(inputs: dict, case: dict) -> dict:
    gate, up = _halves(inputs, case)
    act = silu(gate) if int(case["act"]) == 0 else gelu(gate)
    return {"out": act * up}


def framework(inputs: dict, case: dict) -> dict:
    """The same formula in CuPy, unfused (the halves as views, then several elementwise kernels)."""
    import cupy
    from cupyx.scipy.special import erf

    hidden = int(case["hidden"])
    v = bf16_values(inputs["gate_up"])
    gate, up = v[:, :hidden], v[:, hidden:]
    if int(case["act"]) == 0:
        act = gate / (1.0 + cupy.exp(-gate))
    else:
        act = 0.5 * gate * (1.0 + erf(gate * np.float32(1.0 / math.sqrt(2.0))))
    return {"out": bf16_bits(act * up)}
