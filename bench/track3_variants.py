"""Variants of one exercise's reference kernel against each other, on a CUDA GPU.

    python3 bench/track3_variants.py cross-entropy.fused reference solutions/correct/batched_write_pass.cu \
        bench/archive/track3_variants/cross_entropy/v1_batched_reverse.cu --cases 0,1 --reps 20

Each source (`reference` for the exercise's reference.cu, a path inside the
exercise folder, or a path from the repository root) is compiled as the judge
compiles (NVRTC, this GPU's target, the spec's constants) and launched with the
exercise's own launch plan at its benchmark cases (--cases: their indices),
timed the way bench/reference_kernels.py times (L2 flushed before each call,
median of --reps calls), against a copy moving the same bytes (the spec's byte
model). Each source's outputs are compared with the first source's, so a variant
that is fast because it is wrong shows. --judge first runs every source through
the judge on this GPU (`kernels.judge.Judge`, backend cuda) and prints its verdict.
Numbers: docs/benchmarks.md, "Track 3".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def source_path(exercise, name: str) -> Path:
    if name == "reference":
        return exercise.folder / "reference.cu"
    inside = exercise.folder / name
    return inside if inside.is_file() else ROOT / name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercise")
    parser.add_argument("sources", nargs="+")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--cases", default="", help="comma-separated benchmark case indices (default: all)")
    parser.add_argument("--judge", action="store_true", help="judge every source on this GPU first")
    args = parser.parse_args(argv)

    import cupy as cp
    import reference_kernels as rk

    from kernels.buffers import storage_dtype, to_float64
    from kernels.exercises import load_catalog
    from kernels.plan import buffer_shapes, case_dict, env_for, load_reference, resolve_launches

    exercise = load_catalog(ROOT / "lessons")[0][args.exercise]
    ref = load_reference(exercise)
    if args.judge:
        from kernels.judge import Judge

        with Judge(ROOT / "lessons", backend="cuda") as judge:
            for name in args.sources:
                result = judge.run(source_path(exercise, name).read_text(), exercise.id, bench=False)
                print(f"judge {exercise.id} {name}: {result['verdict']}: {(result.get('message') or '')[:110]}", flush=True)
    timer = rk.Timer(cp, args.reps)
    compiled = []
    for name in args.sources:
        path = source_path(exercise, name)
        try:
            _, constants, functions = rk.compile_module(cp, path.read_text(), exercise, [k.name for k in exercise.kernels])
        except Exception as error:  # one variant that does not build does not stop the others
            print(f"{exercise.id} {name}: does not compile: {str(error)[:300]}", flush=True)
            continue
        compiled.append((name, constants, functions))
    wanted = {int(i) for i in args.cases.split(",") if i.strip()}
    outputs = [b for b in exercise.buffers if b.role in ("out", "inout")]
    for index, case in enumerate(exercise.benchmark.cases):
        if wanted and index not in wanted:
            continue
        first: dict[str, np.ndarray] | None = None
        copy_ms = None
        for name, constants, functions in compiled:
            env = env_for(case, constants)
            if copy_ms is None:
                inputs = ref.generate(case_dict(case, constants), np.random.default_rng([args.seed, 1000 + index]))
                shapes = buffer_shapes(exercise, env)
                host = {b.name: inputs[b.name] for b in exercise.buffers if b.name in inputs}
                copy_ms = rk.copy_same_bytes_ms(cp, timer, exercise.benchmark.bytes.evaluate(env))
            arrays = {b.name: (cp.asarray(host[b.name]) if b.name in host
                               else cp.zeros(shapes[b.name], dtype=storage_dtype(b.dtype)))
                      for b in exercise.buffers}
            launches = resolve_launches(exercise.launches, env)
            scratch = [arrays[b.name] for b in exercise.buffers if b.role == "scratch" and b.init == "zeros"]

            def zero_scratch(scratch=scratch) -> None:
                for array in scratch:
                    array.fill(0)

            zero_scratch()
            rk.launch_all(cp, functions, launches, arrays)
            got = {b.name: to_float64(cp.asnumpy(arrays[b.name]).reshape(-1), b.dtype) for b in outputs}
            if first is None:
                first, note = got, "first"
            else:
                diffs = []
                for b in outputs:
                    a, w = got[b.name], first[b.name]
                    same = np.isclose(a, w, rtol=0, atol=0, equal_nan=True)
                    rel = np.abs(a - w) / np.maximum(np.abs(w), 1e-30)
                    diffs.append(f"{b.name}: {int((~same).sum())} differ, max rel {float(np.nanmax(np.where(same, 0, rel))):.1e}")
                note = "; ".join(diffs)
            ms = timer.median_ms(lambda: rk.launch_all(cp, functions, launches, arrays), zero_scratch)
            print(f"{exercise.id} {case.label} {name}: {ms:.4f} ms, {100 * copy_ms / ms:.1f}% of a same-size copy "
                  f"({copy_ms:.4f} ms) | vs first: {note}", flush=True)
            del arrays
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
