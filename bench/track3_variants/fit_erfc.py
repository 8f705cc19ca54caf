"""The polynomial behind the GeGLU kernel's normal CDF (lesson 21), and its error.

    python3 bench/track3_variants/fit_erfc.py

For t >= 0 and u = 1 / (1 + t / 2), erfc(t) = u * exp(-t^2 + R(u)) with R smooth
on (0, 1] (R(1) = 0; as t grows, R tends to -log(sqrt(pi) * 2)). R is fitted
here by least squares, reweighted towards the smallest largest error, with a
polynomial of degree 9 in u. The kernel evaluates Phi(g) = erfc(|g| / sqrt 2) / 2
(g < 0) or 1 - that (g >= 0) in base 2: the coefficients printed are R times
log2(e), with the 1/2 folded into the constant term (-1). The evaluation is then
repeated in float32 (numpy) and compared with math.erfc in float64. Needs only
numpy and the standard library; no GPU.
"""

from __future__ import annotations

import math

import numpy as np

P = 0.5      # u = 1 / (1 + P t)
DEGREE = 9


def r_of_u(u: np.ndarray) -> np.ndarray:
    t = (1.0 / u - 1.0) / P
    out = np.empty_like(u)
    for n, (ti, ui) in enumerate(zip(t, u)):
        if ti < 26.0:
            out[n] = math.log(math.erfc(ti)) + ti * ti - math.log(ui)
        else:  # erfc underflows in float64: its asymptotic series, three terms
            out[n] = -math.log(math.sqrt(math.pi) * ti * ui) + math.log1p(-0.5 / ti**2 + 0.75 / ti**4)
    return out


def fit(iterations: int = 60) -> tuple[np.ndarray, float]:
    u = 0.5 + 0.5 * np.cos(np.linspace(0.0, math.pi, 4000))
    u = u[u > 1e-6]
    y = r_of_u(u)
    a = np.vander(u, DEGREE + 1, increasing=True)
    weight = np.ones_like(u)
    for _ in range(iterations):
        c, *_ = np.linalg.lstsq(a * weight[:, None], y * weight, rcond=None)
        err = np.abs(a @ c - y)
        weight *= np.sqrt(err / err.max() + 1e-3)
        weight /= weight.max()
    return c, float(err.max())


def phi_float32(g: np.ndarray, coeffs: np.ndarray) -> np.ndarray:
    """The kernel's arithmetic in float32 (2^x exact here; the GPU's is within 2 ulp)."""
    f = np.float32
    c = coeffs.astype(np.float32)
    t = np.abs(g).astype(np.float32) * f(0.70710678118654752)
    u = (f(1.0) / (f(1.0) + f(P) * t)).astype(np.float32)
    r = np.full_like(u, c[-1])
    for k in range(DEGREE - 1, -1, -1):
        r = (r * u + c[k]).astype(np.float32)
    e = (-(t * f(1.0 / math.log(2.0))) * t + r).astype(np.float32)
    h = (u * np.exp2(e.astype(np.float64)).astype(np.float32)).astype(np.float32)
    return np.where(g >= 0, f(1.0) - h, h)


def main() -> int:
    coeffs, err = fit()
    base2 = coeffs / math.log(2.0)
    base2[0] -= 1.0
    print(f"largest error of R(u), exact arithmetic: {err:.2e}")
    print("coefficients, constant term first (R * log2 e, minus 1 in the constant):")
    for k, value in enumerate(base2):
        print(f"  u^{k}: {value:.9e}")
    g = np.concatenate([np.linspace(-13.0, 13.0, 200001), -np.logspace(-6, 1.1, 2000),
                        np.logspace(-6, 1.1, 2000)]).astype(np.float32)
    got = phi_float32(g, base2.astype(np.float32)).astype(np.float64)
    want = np.array([0.5 * math.erfc(-float(v) / math.sqrt(2.0)) for v in g])
    rel = np.abs(got - want) / want
    print("largest relative error of Phi(g) in float32, against math.erfc:")
    for lo, hi in ((-13, -9), (-9, -6), (-6, -3), (-3, 0), (0, 3), (3, 13)):
        inside = (g >= lo) & (g < hi) & (want > 1e-37)
        print(f"  {lo:4d} <= g < {hi:3d}: {rel[inside].max():.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
