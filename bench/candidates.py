"""Time candidate kernels on the benchmark cases of their exercise, in one
process: each output checked against the framework ("diff"), then timed with
bench/reference_kernels.py's own Timer (L2 flushed, median), against a copy
of the same bytes and the framework. No baselines, no judging: for trying
many versions of a reference in one device call before choosing one.

    python3 bench/candidates.py SPEC [SPEC ...] [--reps 20] [--cases 0,2]
    SPEC = exercise_id=path[@-DNAME=V,-DNAME=V][#geometry]

`path` is relative to the working directory; `-D` options are passed to NVRTC
(a source can `#ifndef` them); `geometry` names a launch override from
GEOMETRY, for kernels written for another grid than the exercise's. A
solution slower than 20 ms per call is timed 3 times. Example (docs/benchmarks.md):
    python3 bench/candidates.py "coalescing.vector_copy=lessons/06-coalescing/exercises/vector_copy/reference.cu"
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import reference_kernels as rk  # noqa: E402
from kernels.buffers import storage_dtype, to_float64  # noqa: E402
from kernels.exercises import load_catalog  # noqa: E402
from kernels.constants import read_constants  # noqa: E402
from kernels.plan import buffer_shapes, case_dict, env_for, load_reference, resolve_launches  # noqa: E402


def cdiv(a, b):
    return (a + b - 1) // b


# name -> function(env, launch) -> (grid, block)
GEOMETRY = {
    # bench/archive/candidate_kernels/conv_shfl.cu: block (32, 4), ROWS rows per thread
    "conv_r4": lambda e, l: ((cdiv(e["W"], 128), cdiv(e["H"], 16), 1), (32, 4, 1)),
    "conv_r8": lambda e, l: ((cdiv(e["W"], 128), cdiv(e["H"], 32), 1), (32, 4, 1)),
    "conv_r16": lambda e, l: ((cdiv(e["W"], 128), cdiv(e["H"], 64), 1), (32, 4, 1)),
    "conv_r32": lambda e, l: ((cdiv(e["W"], 128), cdiv(e["H"], 128), 1), (32, 4, 1)),
    "tr_col": lambda e, l: ((cdiv(e["rows"], 32), cdiv(e["cols"], 8), 1), (32, 8, 1)),
    "tr_row": lambda e, l: ((cdiv(e["cols"], 32), cdiv(e["rows"], 8), 1), (32, 8, 1)),
    "vc_naive": lambda e, l: ((64, 1, 1), (128, 1, 1)),
}


def compile_src(cp, source, exercise, names, defines):
    from kernels.nvrtc import compile_program

    values, defined, _ = read_constants(source, exercise)
    props = cp.cuda.runtime.getDeviceProperties(0)
    options = ["-std=c++17", "-lineinfo",
               f"--gpu-architecture={rk.device_arch(props['major'], props['minor'])}"]
    options += [f"-D{k}={v}" for k, v in values.items() if k not in defined]
    options += list(defines)
    out = compile_program(source, "kernel.cu", options)
    if not out.ok:
        raise RuntimeError(out.log)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as handle:
        handle.write(out.cubin)
        handle.flush()
        module = cp.RawModule(path=handle.name)
        return module, {n: module.get_function(n) for n in names}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--cases", default="", help="comma list of case indices to run (default all)")
    args = ap.parse_args()
    import cupy as cp

    catalog, _ = load_catalog(ROOT / "lessons")
    timer = rk.Timer(cp, args.reps)
    print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}", flush=True)
    copy_cache, fw_cache, input_cache = {}, {}, {}
    for spec in args.specs:
        geometry = None
        if "#" in spec:
            spec, geometry = spec.split("#", 1)
        defines = []
        if "@" in spec:
            spec, d = spec.split("@", 1)
            defines = d.split(",")
        ex_id, path = spec.split("=", 1)
        exercise = catalog[ex_id]
        ref = load_reference(exercise)
        source = Path(path).read_text()
        try:
            _, functions = compile_src(cp, source, exercise, [k.name for k in exercise.kernels], defines)
        except Exception as error:  # noqa: BLE001
            print(f"{ex_id} {path} {defines}: COMPILE FAILED {str(error)[:400]}", flush=True)
            continue
        _, constants = None, read_constants(source, exercise)[0]
        for index, case in enumerate(exercise.benchmark.cases):
            if args.cases and str(index) not in args.cases.split(","):
                continue
            env = env_for(case, constants)
            cdict = case_dict(case, constants)
            if (ex_id, index) not in input_cache:
                if any(k[0] != ex_id for k in input_cache):
                    input_cache.clear()
                input_cache[(ex_id, index)] = ref.generate(cdict, np.random.default_rng([args.seed, 1000 + index]))
            inputs = input_cache[(ex_id, index)]
            shapes = buffer_shapes(exercise, env)
            arrays = {b.name: (cp.asarray(inputs[b.name]) if b.name in inputs else
                               cp.empty(shapes[b.name], dtype=storage_dtype(b.dtype))) for b in exercise.buffers}
            launches = resolve_launches(exercise.launches, env)
            if geometry:
                launches = [dataclasses.replace(lau, grid=g, block=b) for lau in launches
                            for g, b in [GEOMETRY[geometry](env, lau)]]
            scratch = [arrays[b.name] for b in exercise.buffers if b.role == "scratch" and b.init == "zeros"]

            def zero():
                for a in scratch:
                    a.fill(0)
            for b in exercise.buffers:
                if b.role == "out":
                    arrays[b.name].fill(0)
            zero()
            before = {b.name: arrays[b.name].copy() for b in exercise.buffers if b.role == "inout"}
            status = "unchecked"
            try:
                rk.launch_all(cp, functions, launches, arrays)
                cp.cuda.runtime.deviceSynchronize()
                framework = getattr(ref, "framework", None)
                if framework is not None:
                    got = framework({**arrays, **before}, cdict)
                    worst = 0.0
                    for name, value in (got or {}).items():
                        dtype = next(b.dtype for b in exercise.buffers if b.name == name)
                        mine = to_float64(cp.asnumpy(arrays[name].reshape(-1)[: value.size]), dtype)
                        theirs = to_float64(cp.asnumpy(value.reshape(-1)), dtype)
                        worst = max(worst, float(np.max(np.abs(mine - theirs)) / max(float(np.max(np.abs(theirs))), 1e-30)))
                    status = f"diff {worst:.1e}"
                probe = cp.cuda.Event(), cp.cuda.Event()
                zero()
                probe[0].record()
                rk.launch_all(cp, functions, launches, arrays)
                probe[1].record()
                probe[1].synchronize()
                slow = cp.cuda.get_elapsed_time(*probe) > 20.0   # a slow solution: 3 calls are enough
                timer.reps = 3 if slow else args.reps
                ms = timer.median_ms(lambda: rk.launch_all(cp, functions, launches, arrays), zero)
                timer.reps = args.reps
            except Exception as error:  # noqa: BLE001
                print(f"{ex_id:24s} {case.label:28s} {Path(path).name} {defines} {geometry or ''}: FAILED {str(error)[:300]}", flush=True)
                break
            nbytes = exercise.benchmark.bytes.evaluate(env) if exercise.benchmark.bytes is not None else None
            extra = ""
            if nbytes is not None:
                key = int(nbytes)
                if key not in copy_cache:
                    copy_cache[key] = rk.copy_same_bytes_ms(cp, timer, nbytes)
                extra = f"{100 * copy_cache[key] / ms:5.1f}% of copy ({copy_cache[key]:.4f})"
            fkey = (ex_id, index)
            if fkey not in fw_cache and getattr(ref, "framework", None) is not None:
                fw_cache[fkey] = timer.median_ms(lambda: ref.framework(arrays, cdict))
            if fkey in fw_cache:
                extra += f" | fw {fw_cache[fkey]:.4f} ({fw_cache[fkey] / ms:.2f}x)"
            print(f"{ex_id:24s} {case.label:28s} {ms:9.4f} ms {extra} | {status} | {Path(path).name} "
                  f"{' '.join(defines)} {geometry or ''}", flush=True)
            del arrays
            cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    t0 = time.time()
    main()
    print(f"variants.py: {time.time() - t0:.1f} s", flush=True)
