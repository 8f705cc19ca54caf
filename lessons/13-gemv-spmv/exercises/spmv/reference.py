"""Trusted inputs, fp64 reference and framework baseline for gemv-spmv.spmv.

Only what numpy and cupy share is used: the judge may pass a cupy Generator
and cupy arrays for the large benchmark sizes.
"""

from __future__ import annotations

import numpy as np

LONGEST_ROW = 1024  # the power law's tail is cut here (see row_lengths)


def array_module(array):
    """numpy, or cupy for a cupy array (the generator decides where inputs live)."""
    if type(array).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def row_lengths(rows: int, cols: int, nnz: int, pattern: str, rng):
    """int64 lengths summing to exactly nnz, none above cols. "banded": all
    equal (the first nnz % rows one longer); "powerlaw": Lomax (Pareto minus 1,
    exponent 2.5) draws scaled to nnz: many empty and short rows, a few long
    ones, at most LONGEST_ROW (then topped up in order where rows have room)."""
    u = rng.random(rows, dtype=np.float64)
    xp = array_module(u)
    if pattern == "banded":
        raw = xp.ones(rows, dtype=np.float64)
    else:
        raw = (1.0 - u) ** (-1.0 / 2.5) - 1.0
    cap = min(cols, LONGEST_ROW) if pattern == "powerlaw" else cols
    lengths = xp.floor(raw * (nnz / float(raw.sum()))).astype(np.int64)
    for _ in range(1000):
        lengths = xp.minimum(lengths, cap)
        deficit = nnz - int(lengths.sum())
        if deficit <= 0:
            break
        room = (lengths < cap).astype(np.int64)
        lengths = lengths + room * (xp.cumsum(room) <= deficit)
    return lengths


def generate(case, rng):
    rows, cols, nnz = int(case["rows"]), int(case["cols"]), int(case["nnz"])
    lengths = row_lengths(rows, cols, nnz, str(case["pattern"]), rng)
    xp = array_module(lengths)
    row_ptr = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(lengths)])
    e = xp.arange(nnz, dtype=np.int64)
    row = xp.searchsorted(row_ptr[1:], e, side="right")   # the row of each nonzero
    k = e - row_ptr[row]                                    # its place in the row
    length = lengths[row]
    if case["pattern"] == "banded":
        # a window of the row's length around the diagonal, inside [0, cols)
        centre = row * cols // rows
        first = xp.minimum(xp.maximum(centre - length // 2, 0), cols - length)
        col = first + k
    else:
        # spread over the whole row: a random start, then equal steps
        step = cols // xp.maximum(lengths, 1)
        start = (rng.random(rows, dtype=np.float64) * step).astype(np.int64)
        col = start[row] + k * step[row]
    # values in [0.5, 1.5), x in [1, 2): a non-empty row sums to at least 0.5
    # per nonzero; an empty row's 0 is checked exactly (a row left unwritten
    # keeps the sentinel)
    vals = rng.random(nnz, dtype=np.float32) + np.float32(0.5)
    x = rng.random(cols, dtype=np.float32) + np.float32(1.0)
    return {"row_ptr": row_ptr.astype(np.int32), "col_idx": col.astype(np.int32),
            "vals": vals, "x": x}


def reference(inputs, case):
    row_ptr = np.asarray(inputs["row_ptr"], dtype=np.int64)
    col = np.asarray(inputs["col_idx"], dtype=np.int64)
    products = np.asarray(inputs["vals"], dtype=np.float64) * np.asarray(inputs["x"], dtype=np.float64)[col]
    rows = row_ptr.size - 1
    row = np.repeat(np.arange(rows), np.diff(row_ptr))
    return {"y": np.bincount(row, weights=products, minlength=rows).astype(np.float64)}


def framework(inputs, case):
    from cupyx.scipy import sparse

    rows, cols = int(case["rows"]), int(case["cols"])
    matrix = sparse.csr_matrix((inputs["vals"], inputs["col_idx"], inputs["row_ptr"]), shape=(rows, cols))
    return {"y": matrix @ inputs["x"]}
