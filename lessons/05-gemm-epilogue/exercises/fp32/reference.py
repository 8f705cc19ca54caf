"""Fused GEMM + bias + activation (FP32): inputs, float64 reference, unfused cuBLAS baseline."""

from __future__ import annotations

import numpy as np

GELU_K0 = np.sqrt(2.0 / np.pi)
GELU_K1 = 0.044715


def _alternating_signs(size: int) -> np.ndarray:
    return np.where(np.arange(size) % 2 == 0, 1.0, -1.0)


def generate(case: dict, rng: np.random.Generator) -> dict[str, np.ndarray]:
    m, n, k = int(case["M"]), int(case["N"]), int(case["K"])
    # magnitudes in [1/4, 1]: a 1x1x1 product is never ~0 (the judge refuses such a case)
    a = (rng.uniform(0.25, 1.0, size=(m, k)) * rng.choice([-1.0, 1.0], size=(m, k))).astype(np.float32)
    b = (rng.uniform(0.25, 1.0, size=(k, n)) * rng.choice([-1.0, 1.0], size=(k, n))).astype(np.float32)
    return with_epilogue_inputs(a, b, rng)


def with_epilogue_inputs(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A and B with the epilogue's C and bias drawn for them (the WMMA exercise uses it too)."""
    m, n = a.shape[0], b.shape[1]
    return {
        "A": a,
        "B": b,
        "C": rng.uniform(-2.0, 2.0, size=(m, n)).astype(np.float32),
        # offset from zero so that a forgotten bias can never look right; signs
        # alternate, starting positive, so that no draw makes a small ReLU case all
        # zeros (with random signs a 7x5x3 case came out ~0 about once in 160 draws)
        "bias": (rng.uniform(0.5, 1.5, size=max(m, n)) * _alternating_signs(max(m, n))).astype(np.float32),
    }


def epilogue(acc: np.ndarray, inputs: dict, case: dict) -> np.ndarray:
    """alpha·acc + beta·C + bias (by kind), then the activation; float64 in and out."""
    m, n = acc.shape
    bias = inputs["bias"].astype(np.float64)
    kind, act = int(case["bias_kind"]), int(case["act"])
    v = float(case["alpha"]) * acc
    if float(case["beta"]) != 0.0:
        v = v + float(case["beta"]) * inputs["C"].astype(np.float64)
    if kind == 1:
        v = v + bias[:n][None, :]
    elif kind == 2:
        v = v + bias[:m][:, None]
    elif kind == 3:
        v = v + bias[0]
    if act == 1:
        v = np.maximum(v, 0.0)
    elif act == 2:
        v = 0.5 * v * (1.0 + np.tanh(GELU_K0 * (v + GELU_K1 * v**3)))
    return v


def reference(inputs: dict[str, np.ndarray], case: dict) -> dict[str, np.ndarray]:
    acc = inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)
    return {"D": epilogue(acc, inputs, case)}


def error_scale(inputs: dict[str, np.ndarray], case: dict) -> dict[str, np.ndarray]:
    """Per-element size of what was summed: rounding (FP32 accumulation) grows with K and with |A|·|B|."""
    a = np.abs(inputs["A"].astype(np.float64))
    b = np.abs(inputs["B"].astype(np.float64))
    m, n = a.shape[0], b.shape[1]
    scale = abs(float(case["alpha"])) * (a @ b) + abs(float(case["beta"])) * np.abs(inputs["C"].astype(np.float64))
    return {"D": scale + np.abs(inputs["bias"][: max(m, n)]).max() + 1.0}


def framework(inputs: dict, case: dict) -> dict:
    """The unfused pipeline: cuBLAS GEMM (cupy.matmul: SGEMM here; FP16 inputs with FP32
    accumulation for the WMMA exercise), then the epilogue as separate FP32 elementwise ops."""
    import cupy

    v = float(case["alpha"]) * cupy.matmul(inputs["A"], inputs["B"]).astype(cupy.float32, copy=False)
    if float(case["beta"]) != 0.0:
        v += float(case["beta"]) * inputs["C"]
    m, n = v.shape
    kind, act = int(case["bias_kind"]), int(case["act"])
    if kind == 1:
        v += inputs["bias"][:n][None, :]
    elif kind == 2:
        v += inputs["bias"][:m][:, None]
    elif kind == 3:
        v += inputs["bias"][0]
    if act == 1:
        v = cupy.maximum(v, 0.0)
    elif act == 2:
        v = 0.5 * v * (1.0 + cupy.tanh(float(GELU_K0) * (v + GELU_K1 * v * v * v)))
    return {"D": v}
