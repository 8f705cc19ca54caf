"""Reference kernels against their baselines and the hardware, on a CUDA GPU.

For every exercise named (default: all with a benchmark section) this script
1. judges reference.cu, the starter and every solutions/{correct,wrong}/*.cu
   through `kernels.judge.Judge` (the CUDA backend, a fresh job process per
   source) and marks BAD any verdict that is not the one its folder promises;
2. times reference.cu, every kernel baseline of the spec (naive, and middle steps
   such as an unpadded tile) and the framework baseline at every
   benchmark case with CUDA events, the L2 flushed (256 MiB written) before each
   timed call, median of --reps calls; prints GB/s and % of device-to-device
   copy bandwidth (byte model) and of a copy moving the same bytes (what a
   tensor of that size can reach at all), or TFLOP/s (flop model), speed-ups, and for the
   GEMMs cuBLAS alone (cupy.matmul) and PyTorch where installed.

Run on the GPU machine from the repository root:
    python bench/reference_kernels.py                       # everything
    python bench/reference_kernels.py row-reductions.softmax --no-judge --reps 50
Needs numpy and cupy (torch optional). Numbers go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernels.buffers import storage_dtype, to_float64  # noqa: E402
from kernels.exercises import load_catalog  # noqa: E402
from kernels.constants import read_constants  # noqa: E402
from kernels.targets.cuda import allow_dynamic_shared, device_arch  # noqa: E402
from kernels.plan import buffer_shapes, case_dict, env_for, load_reference, resolve_launches  # noqa: E402

CTYPE_NP = {"int": np.int32, "unsigned int": np.uint32, "long long": np.int64, "float": np.float32,
            "double": np.float64, "size_t": np.uint64}


def toolkit_includes() -> list[str]:
    """The CUDA toolkit's include folder: the pip NVRTC headers lack crt/mma.h, which <mma.h> needs."""
    import shutil

    nvcc = shutil.which("nvcc")
    candidates = [Path(nvcc).resolve().parents[1] / "include"] if nvcc else []
    candidates.append(Path("/usr/local/cuda/include"))
    return [str(p) for p in candidates if (p / "crt" / "mma.h").exists()][:1]


def compile_module(cp, source: str, exercise, kernel_names: list[str]):
    """NVRTC for this GPU's own target, as the judge builds (sm_90a on an H100)."""
    import tempfile

    from kernels.nvrtc import compile_program

    values, defined, _ = read_constants(source, exercise)
    props = cp.cuda.runtime.getDeviceProperties(0)
    options = ["-std=c++17", "-lineinfo", f"--gpu-architecture={device_arch(props['major'], props['minor'])}"]
    options += [f"-D{k}={v}" for k, v in values.items() if k not in defined]
    options += [f"-I{d}" for d in toolkit_includes()]
    out = compile_program(source, "kernel.cu", options)
    if not out.ok:
        raise RuntimeError(out.log)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as handle:
        handle.write(out.cubin)
        handle.flush()
        module = cp.RawModule(path=handle.name)
        functions = {name: module.get_function(name) for name in kernel_names}
    return module, values, functions


def launch_all(cp, functions, launches, arrays) -> None:
    for launch in launches:
        args = []
        for arg in launch.args:
            if arg.buffer is not None:
                args.append(arrays[arg.buffer])
            else:
                args.append(CTYPE_NP.get(arg.ctype, np.float32)(arg.value))
        function = functions[launch.kernel]
        # the opt-in the judge makes too, once per kernel (functions live for the whole run)
        opted = _SHARED_OPT_IN.setdefault(id(function), {})
        allow_dynamic_shared(launch.kernel, function, launch.shared_bytes, _shared_limit(cp), opted)
        function(launch.grid, launch.block, tuple(args), shared_mem=launch.shared_bytes)


_SHARED_OPT_IN: dict[int, dict[str, int]] = {}


@functools.cache
def _shared_limit(cp) -> int:
    """What the GPU gives one block (asked once: launch_all runs inside the timed calls)."""
    return int(cp.cuda.runtime.getDeviceProperties(0)["sharedMemPerBlockOptin"])


def judge_exercise(exercise) -> list[str]:
    """One line per source: the judge's own verdict (an isolated job process per
    source, so a faulting wrong solution cannot poison the next) against what its
    folder promises."""
    from kernels.judge import Judge

    folder = exercise.folder
    expectations = [(folder / "reference.cu", True), (folder / "starter.cu", False)]
    expectations += [(p, True) for p in sorted((folder / "solutions/correct").glob("*.cu"))]
    expectations += [(p, False) for p in sorted((folder / "solutions/wrong").glob("*.cu"))]
    lines = []
    with Judge(ROOT / "lessons", backend="cuda") as judge:
        for path, should_pass in expectations:
            result = judge.run(path.read_text(), exercise.id, bench=False)
            ok = (result["verdict"] == "accepted") == should_pass
            lines.append(f"  {'ok ' if ok else 'BAD'} {str(path.relative_to(folder)):50s} "
                         f"{result['verdict']}: {(result.get('message') or '')[:110]}")
    return lines


class Timer:
    def __init__(self, cp, reps: int):
        self.cp, self.reps = cp, reps
        self.flush = cp.empty(64 * 1024 * 1024, dtype=cp.float32)  # 256 MiB > 2x the 50 MB L2

    def median_ms(self, fn, setup=None) -> float:
        """`setup` (untimed) runs before every call, e.g. to zero scratch buffers."""
        cp = self.cp
        for _ in range(3):
            if setup is not None:
                setup()
            fn()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        times = []
        deadline = time.monotonic() + 20.0
        for i in range(self.reps):
            if setup is not None:
                setup()
            self.flush.fill(float(i))
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop))
            if time.monotonic() > deadline and len(times) >= 5:
                break
        return float(np.median(times))


def copy_gbps(cp, timer: Timer) -> float:
    """The device's copy bandwidth: 1 GiB read and 1 GiB written."""
    nbytes = 2 * 4 * (1 << 28)
    return nbytes / copy_same_bytes_ms(cp, timer, nbytes) / 1e6


def copy_same_bytes_ms(cp, timer: Timer, nbytes: float) -> float:
    """A device-to-device copy moving the case's bytes (half read, half written):
    what the hardware gives at this size, fixed costs included. Small tensors do
    not reach the 1 GiB copy's bandwidth even when nothing but a copy runs."""
    n = max(1, int(nbytes) // 8)
    src = cp.ones(n, dtype=cp.float32)
    dst = cp.empty_like(src)
    return timer.median_ms(lambda: dst.__setitem__(Ellipsis, src))


def torch_baseline(exercise_id: str, arrays: dict, case: dict, bf16: frozenset = frozenset()):
    """A PyTorch version of the same operation (None where there is none or no torch).
    `bf16`: the buffers stored as bfloat16 bit patterns (uint16), viewed as torch.bfloat16
    through int16 (a dtype every torch version takes from cupy)."""
    try:
        import torch
    except ImportError:
        return None
    t = {k: (torch.as_tensor(v.view(np.int16), device="cuda").view(torch.bfloat16)
             if k in bf16 else torch.as_tensor(v, device="cuda")) for k, v in arrays.items()}
    if exercise_id == "rmsnorm.fused_add":  # the residual add in place, then rms_norm
        x, residual, weight = t["x"], t["residual"], t["weight"]
        return lambda: torch.nn.functional.rms_norm(residual.add_(x), (x.shape[-1],), weight, 1e-5)
    if exercise_id == "rope.qk_inplace":
        return _torch_rope(torch, t["q"], t["k"], case)
    if exercise_id == "cross-entropy.fused":  # the mean loss forward and its gradient, as training runs them
        logits, target = t["logits"].detach().requires_grad_(), t["targets"].long()
        return lambda: torch.autograd.grad(torch.nn.functional.cross_entropy(logits, target), logits)
    if exercise_id == "topk.rows":  # values and indices, sorted
        return lambda: torch.topk(t["logits"], int(case["k"]), dim=-1)
    if exercise_id == "topk.argmax":  # the maximum and its column, as greedy decoding takes them
        return lambda: torch.max(t["logits"], dim=-1)
    if exercise_id == "row-reductions.softmax":
        return lambda: torch.softmax(t["x"], dim=-1)
    if exercise_id == "row-reductions.layernorm":
        return lambda: torch.nn.functional.layer_norm(t["x"], (t["x"].shape[-1],), t["weight"], t["bias"], 1e-5)
    if exercise_id == "convolution.conv2d":  # cross-correlation, zero padding K // 2, as the exercise
        x, w = t["x"][None, None], t["w"][None, None]
        return lambda: torch.nn.functional.conv2d(x, w, padding=int(case["K"]) // 2)
    if exercise_id == "convolution.conv1d":
        x, w = t["x"][None, None], t["w"][None, None]
        return lambda: torch.nn.functional.conv1d(x, w, padding=int(case["R"]))
    if exercise_id in ("attention.three_kernels", "attention.fused_rows", "flash-attention.forward"):
        return sdpa_baseline(torch, t, case, math=exercise_id.startswith("attention."))
    if exercise_id == "quant-gemv.int8_gemv":  # dequantise to bf16, then a matrix-vector product
        w, scales, x = t["W"], t["scales"], t["x"]
        return lambda: (w.to(torch.bfloat16) * scales.to(torch.bfloat16).repeat_interleave(
            128, dim=1)[:, : w.shape[1]]) @ x
    if exercise_id == "gated-mlp.glu":  # the halves as views, the activation, the product
        gate, up = t["gate_up"].chunk(2, dim=-1)
        act = torch.nn.functional.silu if int(case["act"]) == 0 else torch.nn.functional.gelu
        return lambda: act(gate) * up
    if exercise_id.startswith("gemm-epilogue."):
        n = int(case["N"])
        bias = t["bias"][:n].to(t["A"].dtype)
        return lambda: torch.nn.functional.gelu(torch.addmm(bias, t["A"], t["B"]), approximate="tanh")
    return None


def _torch_rope(torch, q, k, case: dict):
    """Hugging Face's apply_rotary_pos_emb (rotate_half, cos/sin cast to bf16); the
    cos/sin table is built once, outside the timed call, as a model shares it across layers."""
    d, tokens = int(case["head_dim"]), int(case["tokens"])
    pos = torch.arange(tokens, device="cuda", dtype=torch.float32) + int(case.get("offset", 0))
    inv_freq = 10000.0 ** (-torch.arange(0, d, 2, device="cuda", dtype=torch.float32) / d)
    emb = torch.cat([torch.outer(pos, inv_freq)] * 2, dim=-1)[:, None, :]
    cos, sin = emb.cos().to(q.dtype), emb.sin().to(q.dtype)

    def rotate_half(x):
        return torch.cat((-x[..., d // 2:], x[..., : d // 2]), dim=-1)

    return lambda: (q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin)


def sdpa_baseline(torch, t: dict, case: dict, math: bool):
    """torch scaled_dot_product_attention on (1, BH, S, D), pinned to one backend:
    MATH (the unfused reference) or FLASH_ATTENTION (FlashAttention-2 kernels)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    backend = SDPBackend.MATH if math else SDPBackend.FLASH_ATTENTION
    q, k, v = (t[name][None] for name in ("Q", "K", "V"))
    causal = bool(int(case["causal"]))

    def run():
        with sdpa_kernel(backend):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return run


def bench_exercise(cp, exercise, timer: Timer, peak_gbps: float, seed: int, source_name: str = "reference.cu") -> list[str]:
    ref = load_reference(exercise)
    source = (exercise.folder / source_name).read_text()
    _, constants, functions = compile_module(cp, source, exercise, [k.name for k in exercise.kernels])
    baselines = {b.name: b for b in exercise.benchmark.baselines}
    rows = []
    for index, case in enumerate(exercise.benchmark.cases):
        env = env_for(case, constants)
        cdict = case_dict(case, constants)
        inputs = ref.generate(cdict, np.random.default_rng([seed, 1000 + index]))
        shapes = buffer_shapes(exercise, env)
        arrays = {b.name: (cp.asarray(inputs[b.name]) if b.name in inputs else cp.empty(shapes[b.name], dtype=storage_dtype(b.dtype)))
                  for b in exercise.buffers}
        launches = resolve_launches(exercise.launches, env)
        # scratch the spec zeroes (a look-back's tile states and ticket) is zeroed
        # before every call, untimed, as the judge does
        scratch = [arrays[b.name] for b in exercise.buffers if b.role == "scratch" and b.init == "zeros"]

        def zero_scratch() -> None:
            for array in scratch:
                array.fill(0)

        cols = {}
        framework = getattr(ref, "framework", None)
        if framework is not None:
            # agreement from one launch on fresh outputs, before the timed calls:
            # outputs that accumulate (atomics into a zeroed sum) grow with every call
            # (and the framework fed the inputs the kernel saw: an inout buffer such
            # as saxpy's y is overwritten by the launch)
            for b in exercise.buffers:
                if b.role == "out":
                    arrays[b.name].fill(0)
            zero_scratch()
            before = {b.name: arrays[b.name].copy() for b in exercise.buffers if b.role == "inout"}
            launch_all(cp, functions, launches, arrays)
            got = framework({**arrays, **before}, cdict)
            for name, value in (got or {}).items():  # the reference kernel must agree with the framework
                dtype = next(b.dtype for b in exercise.buffers if b.name == name)
                # values, not storage: bfloat16 bit patterns (uint16) differ by 0x8000 between -0 and +0
                # on the host: to_float64 is numpy (cupy refuses an implicit conversion)
                mine = to_float64(cp.asnumpy(arrays[name].reshape(-1)[: value.size]), dtype)  # a variable-length result: its prefix
                theirs = to_float64(cp.asnumpy(value.reshape(-1)), dtype)
                diff = float(np.max(np.abs(mine - theirs)))
                size = float(np.max(np.abs(theirs)))
                cols["agree"] = f"{diff / max(size, 1e-30):.1e}"
        cols["ref_ms"] = timer.median_ms(lambda: launch_all(cp, functions, launches, arrays), zero_scratch)
        if framework is not None:
            cols["fw_ms"] = timer.median_ms(lambda: framework(arrays, cdict))
        first_dim = int(case.env[exercise.dims[0]])
        for name, baseline in baselines.items():  # every kernel baseline: naive, and any middle steps
            if baseline.source is None or not baseline.runs_at(first_dim):
                continue
            nsrc = (exercise.folder / baseline.source).read_text()
            _, _, nfuncs = compile_module(cp, nsrc, exercise, [k.name for k in baseline.kernels] or
                                          [lau.kernel for lau in baseline.launches])
            nlaunches = resolve_launches(baseline.launches, env)
            cols[f"{name}_ms"] = timer.median_ms(
                lambda fns=nfuncs, plan=nlaunches: launch_all(cp, fns, plan, arrays))
        torch_fn = torch_baseline(exercise.id, arrays, case.env,
                                  frozenset(b.name for b in exercise.buffers if b.dtype == "bfloat16"))
        if torch_fn is not None:
            try:
                cols["torch_ms"] = timer.median_ms(torch_fn)
            except Exception as error:  # dtype combinations torch refuses: leave the column out
                print(f"  torch baseline skipped: {str(error)[:80]}")
        if exercise.benchmark.bytes is not None:
            cols["copy_ms"] = copy_same_bytes_ms(cp, timer, exercise.benchmark.bytes.evaluate(env))
        if exercise.id.startswith("gemm-epilogue."):
            cols["cublas_ms"] = timer.median_ms(lambda: cp.matmul(arrays["A"], arrays["B"]))
        rows.append(format_row(exercise, case, env, cols, peak_gbps))
    return rows


def format_row(exercise, case, env, cols: dict, peak_gbps: float) -> str:
    ms = cols["ref_ms"]
    parts = [f"{exercise.id:26s} {case.label:34s} ref {ms:9.4f} ms"]
    if exercise.benchmark.bytes is not None:
        gbps = exercise.benchmark.bytes.evaluate(env) / ms / 1e6
        parts.append(f"{gbps:7.0f} GB/s {100 * gbps / peak_gbps:5.1f}% copy")
        if "copy_ms" in cols:
            parts.append(f"{100 * cols['copy_ms'] / ms:5.1f}% of a same-size copy ({cols['copy_ms']:.4f} ms)")
    if exercise.benchmark.flops is not None:
        tflops = exercise.benchmark.flops.evaluate(env) / ms / 1e9
        parts.append(f"{tflops:6.1f} TFLOP/s")
        if "cublas_ms" in cols:
            parts.append(f"cuBLAS-only {cols['cublas_ms']:.4f} ms = {100 * cols['cublas_ms'] / ms:5.1f}% of it")
    kernels = [(key, key[:-3]) for key in cols if key.endswith("_ms") and key not in (
        "ref_ms", "fw_ms", "torch_ms", "copy_ms", "cublas_ms")]
    for key, label in (("fw_ms", "framework"), ("torch_ms", "torch"), *kernels):
        if key in cols:
            parts.append(f"{label} {cols[key]:.4f} ms (x{cols[key] / ms:.2f})")
    if "agree" in cols:
        parts.append(f"max rel diff vs framework {cols['agree']}")
    return " | ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercises", nargs="*", help="exercise ids (default: every exercise with a benchmark)")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--no-judge", action="store_true", help="skip judging the solution sets")
    parser.add_argument("--no-bench", action="store_true", help="skip the timings")
    parser.add_argument("--source", default="reference.cu", metavar="PATH",
                        help="time this file of the exercise folder instead of reference.cu "
                             "(e.g. solutions/correct/hopper_wgmma.cu)")
    args = parser.parse_args(argv)
    try:
        import cupy as cp
    except ImportError:
        print("bench/reference_kernels.py: needs cupy and a CUDA GPU", file=sys.stderr)
        return 2
    catalog, errors = load_catalog(ROOT / "lessons")
    for error in errors:
        print(f"skipped: {error}", file=sys.stderr)
    ids = args.exercises or [i for i, e in catalog.items() if e.benchmark is not None]
    unknown = [i for i in ids if i not in catalog]
    if unknown:
        print(f"bench/reference_kernels.py: unknown exercise {unknown[0]!r}", file=sys.stderr)
        return 2
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"device: {device}; cupy {cp.__version__}")
    if not args.no_judge:
        for exercise_id in ids:
            print(f"judge {exercise_id}")
            print("\n".join(judge_exercise(catalog[exercise_id])), flush=True)
    if not args.no_bench:
        timer = Timer(cp, args.reps)
        peak = copy_gbps(cp, timer)
        print(f"device-to-device copy: {peak:.0f} GB/s (read + write, 1 GiB)")
        for exercise_id in ids:
            if catalog[exercise_id].benchmark is None:
                continue
            if not (catalog[exercise_id].folder / args.source).is_file():
                print(f"{exercise_id}: no {args.source}", file=sys.stderr)
                continue
            if args.source != "reference.cu":
                print(f"{exercise_id}: timing {args.source} in the 'ref' column")
            for row in bench_exercise(cp, catalog[exercise_id], timer, peak, args.seed, args.source):
                print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
