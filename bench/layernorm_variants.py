"""Lesson 04's LayerNorm reference against variants of it, on a CUDA GPU.

    python3 bench/layernorm_variants.py reference v1_l1_split_16k.cu v4_l1_split_16k_keep_batch.cu

Each named source (a file of bench/archive/layernorm_variants/, or `reference` for the
lesson's reference.cu) is timed at 4096 x 50304, 8192 x 4096 and 8192 x 768 the
way bench/reference_kernels.py times (L2 flushed, median of 30 calls), against a
copy moving the same bytes, and its output is compared with the first source's.
Numbers: docs/benchmarks.md, "Track 3".
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

SHAPES = ((4096, 50304), (8192, 4096), (8192, 768))


def main(names: list[str]) -> int:
    if not names:
        print("usage: python3 bench/layernorm_variants.py reference|FILE.cu ...", file=sys.stderr)
        return 2
    import cupy as cp
    import reference_kernels as rk

    from kernels.exercises import load_catalog

    exercise = load_catalog(ROOT / "lessons")[0]["row-reductions.layernorm"]
    ref = rk.load_reference(exercise)
    timer = rk.Timer(cp, 30)
    for rows, cols in SHAPES:
        inputs = {k: cp.asarray(v) for k, v in ref.generate({"rows": rows, "cols": cols},
                                                            np.random.default_rng(1)).items()}
        copy_ms = rk.copy_same_bytes_ms(cp, timer, 8 * rows * cols + 8 * cols)
        block = min(1024, max(32, 1 << (max(1, -(-cols // 16)) - 1).bit_length()))  # the plan's block
        first = None
        for name in names:
            path = exercise.folder / "reference.cu" if name == "reference" else ROOT / "bench/archive/layernorm_variants" / name
            _, _, functions = rk.compile_module(cp, path.read_text(), exercise, ["layernorm"])
            y = cp.empty((rows, cols), dtype=cp.float32)
            args = (inputs["x"], inputs["weight"], inputs["bias"], y, np.int32(rows), np.int32(cols), np.float32(1e-5))

            def run(fn=functions["layernorm"], args=args):
                fn((rows,), (block,), args)

            run()
            first = y.copy() if first is None else first
            diff = float(cp.abs(y - first).max())
            ms = timer.median_ms(run)
            print(f"{rows}x{cols} {name}: {ms * 1000:.1f} us, {100 * copy_ms / ms:.1f}% of a same-size copy "
                  f"({copy_ms * 1000:.1f} us), max diff vs first {diff:.1e}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
