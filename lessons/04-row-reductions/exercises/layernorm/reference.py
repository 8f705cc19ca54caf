"""LayerNorm over the last dimension: inputs, float64 reference, CuPy baseline."""

from __future__ import annotations

import numpy as np

EPS = 1e-5  # the launch plan passes 1e-5 to the kernel (GPT-2's LayerNorm eps)


def generate(case: dict, rng: np.random.Generator) -> dict[str, np.ndarray]:
    rows, cols = int(case["rows"]), int(case["cols"])
    if case.get("data") == "constant":
        # Small integers: every float32 sum of them is exact, so the variance is
        # exactly 0 and only eps keeps 1/sqrt(var + eps) finite.
        x = np.repeat(rng.integers(-8, 9, size=(rows, 1)), cols, axis=1).astype(np.float64)
    else:
        # Means of 50-60 next to a spread of 0.3-0.6: even a best-rounded float32
        # E[x^2] (about 3000, ulp 2.4e-4) minus mean^2 leaves a variance error
        # above the tolerance, while an honest two-pass variance stays ~10x below it.
        # Each row's draws are rescaled to that exact spread: three draws alone can
        # land almost together, and 1/sqrt(var) of such a row multiplies the
        # float32 rounding of a mean near 55 past the tolerance (a correct kernel
        # failed 2 x 3 for about 1 seed in 1000).
        offsets = rng.uniform(50.0, 60.0, size=(rows, 1)) * rng.choice([-1.0, 1.0], size=(rows, 1))
        spread = rng.uniform(0.3, 0.6, size=(rows, 1))
        z = rng.standard_normal((rows, cols))
        if cols > 1:
            z -= z.mean(axis=1, keepdims=True)
            z /= np.maximum(z.std(axis=1, keepdims=True), 1e-3)
        x = z * spread + offsets
    return {
        "x": x.astype(np.float32),
        "weight": rng.uniform(0.5, 1.5, size=cols).astype(np.float32),
        "bias": rng.uniform(-1.0, 1.0, size=cols).astype(np.float32),
    }


def reference(inputs: dict[str, np.ndarray], case: dict) -> dict[str, np.ndarray]:
    x = inputs["x"].astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)  # biased, like PyTorch
    w = inputs["weight"].astype(np.float64)
    b = inputs["bias"].astype(np.float64)
    return {"y": (x - mean) / np.sqrt(var + EPS) * w + b}


def framework(inputs: dict, case: dict) -> dict:
    """Unfused CuPy LayerNorm (mean, var, normalise, affine: several kernels)."""
    import cupy

    x = inputs["x"]
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    return {"y": (x - mean) / cupy.sqrt(var + EPS) * inputs["weight"] + inputs["bias"]}
