"""Lesson 17's FlashAttention kernels and variants of them against torch SDPA (flash), on a CUDA GPU.

    python3 bench/flash_variants.py base FA_BN64=64 FA_QREGS=0 BM=64,THREADS=128 --ref

Each argument is a variant of solutions/correct/mma_sync_registers.cu: `base`
(as committed) or comma-separated NAME=VALUE overrides of its `#define`s
(tile sizes FA_BN64 / FA_BN128, FA_QREGS, FA_MINB, or BM and THREADS with
BM = 16 x warps); `--ref` adds the lesson's WMMA reference.cu. Every variant is
timed at the exercise's benchmark cases the way bench/reference_kernels.py
times (L2 flushed before each call, median of --reps calls, CUDA events) beside
torch.nn.functional.scaled_dot_product_attention pinned to its flash backend,
on standard-normal FP16 inputs; its output is compared with torch's.
Numbers: docs/benchmarks.md, "Track 3: lessons 16 attention and 17 FlashAttention".
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

SOLUTION = "solutions/correct/mma_sync_registers.cu"


def variant_source(text: str, overrides: dict[str, str]) -> str:
    for name, value in overrides.items():
        pattern = re.compile(rf"^#define {name} .*$", re.MULTILINE)
        if not pattern.search(text):
            raise SystemExit(f"no '#define {name}' in the source")
        text = pattern.sub(f"#define {name} {value}", text, count=1)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=["base"])
    parser.add_argument("--ref", action="store_true", help="also time the WMMA reference.cu")
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args(argv)

    import cupy as cp
    import torch

    import reference_kernels as rk
    from kernels.exercises import load_catalog

    exercise = load_catalog(ROOT / "lessons")[0]["flash-attention.forward"]
    timer = rk.Timer(cp, args.reps)
    sources = [("reference.cu", (exercise.folder / "reference.cu").read_text())] if args.ref else []
    solution = (exercise.folder / SOLUTION).read_text()
    for spec in args.variants:
        overrides = {} if spec == "base" else dict(item.split("=", 1) for item in spec.split(","))
        sources.append((spec, variant_source(solution, overrides)))
    compiled = []
    for name, text in sources:
        _, values, functions = rk.compile_module(cp, text, exercise, ["flash_attention"])
        fn = functions["flash_attention"]
        smem = int(values["SMEM_BYTES"])
        if smem > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = smem
        print(f"{name}: BM {values['BM']} THREADS {values['THREADS']} SMEM {smem}, "
              f"{getattr(fn, 'num_regs', '?')} registers, {getattr(fn, 'local_size_bytes', '?')} B local", flush=True)
        compiled.append((name, fn, values))
    print(f"device: {torch.cuda.get_device_name()}; torch {torch.__version__}; cupy {cp.__version__}")
    for case in exercise.benchmark.cases:
        bh, s, d, causal = (int(case.env[k]) for k in ("BH", "S", "D", "causal"))
        gen = torch.Generator(device="cuda").manual_seed(bh * s + d + causal)
        t = {n: torch.randn((bh, s, d), device="cuda", dtype=torch.float16, generator=gen) for n in "QKV"}
        torch_fn = rk.sdpa_baseline(torch, t, {"causal": causal}, math=False)
        want = torch_fn()[0].float()
        torch_ms = timer.median_ms(torch_fn)
        flops = 4 * bh * s * s * d / (2 if causal else 1)
        print(f"BH {bh} S {s} D {d} causal {causal}: torch flash {torch_ms:.4f} ms "
              f"({flops / torch_ms / 1e9:.1f} TFLOP/s)", flush=True)
        q, k, v = (cp.asarray(t[n]) for n in "QKV")
        for name, fn, values in compiled:
            out = cp.zeros_like(q)
            grid = ((s + int(values["BM"]) - 1) // int(values["BM"]), bh)
            launch_args = (q, k, v, out, cp.int32(s), cp.int32(d), cp.int32(causal))

            def run(fn=fn, grid=grid, launch_args=launch_args, threads=int(values["THREADS"]),
                    smem=int(values["SMEM_BYTES"])):
                fn(grid, (threads,), launch_args, shared_mem=smem)

            run()
            cp.cuda.Device().synchronize()
            diff = float((torch.as_tensor(out, device="cuda").float() - want).abs().max())
            ms = timer.median_ms(run)
            print(f"  {name:32s} {ms:.4f} ms {flops / ms / 1e9:6.1f} TFLOP/s {100 * torch_ms / ms:5.1f}% of torch "
                  f"max |diff| vs torch {diff:.1e}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
