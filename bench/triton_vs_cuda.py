"""Each exercise's Triton reference against its CUDA reference, on a CUDA GPU (#29).

For every exercise with a `[triton]` section (or those named), judges
`reference.cu` and `reference.triton.py` through `kernels.judge.Judge` on the
`cuda` backend with the benchmark, and prints per benchmark size the median
time of each and their ratio (Triton / CUDA), then the geomean ratio. The
target: every Triton reference within 10% of the CUDA reference (ratio
<= 1.10), or the lesson says why not. It also prints how long each Triton
verdict took (compile included) and the version of Triton that judged.

Run on the GPU machine from the repository root:
    python bench/triton_vs_cuda.py                        # every exercise with [triton]
    python bench/triton_vs_cuda.py elementwise.saxpy --repeat 2
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernels.exercises import load_exercises  # noqa: E402
from kernels.judge import Judge  # noqa: E402
from kernels.stats import geomean  # noqa: E402


def judge(j: Judge, exercise, language: str, path: Path) -> tuple[dict, float]:
    started = time.perf_counter()
    doc = j.run(path.read_text(), exercise.id, bench=True, language=language)
    return doc, time.perf_counter() - started


def sizes_ms(doc: dict) -> dict[str, float]:
    bench = doc.get("benchmark") or {}
    return {str(s["label"]): float(s["ms"]) for s in bench.get("sizes", []) if s.get("ms") is not None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("exercises", nargs="*", help="exercise ids (default: every one with [triton])")
    parser.add_argument("--repeat", type=int, default=1, help="judge each reference this many times")
    args = parser.parse_args()
    chosen = [e for e in load_exercises(ROOT / "lessons").values() if e.triton is not None and (not args.exercises or e.id in args.exercises)]
    if not chosen:
        print("no exercise with a Triton version matches", file=sys.stderr)
        return 2
    try:
        import triton

        version = triton.__version__
    except ImportError:
        version = "not installed"
    print(f"triton {version}; {len(chosen)} exercise(s); --repeat {args.repeat}")
    ratios, bad = [], 0
    with Judge(ROOT / "lessons", backend="cuda") as j:
        j.wait_ready()
        for exercise in chosen:
            best: dict[str, dict[str, float]] = {"cuda": {}, "triton": {}}
            verdict_s = []
            for _ in range(args.repeat):
                for language, name in (("cuda", "reference.cu"), ("triton", "reference.triton.py")):
                    doc, seconds = judge(j, exercise, language, exercise.folder / name)
                    if doc["verdict"] != "accepted":
                        print(f"{exercise.id} {language}: {doc['verdict']}: {doc.get('message', '')[:300]}")
                        bad += 1
                        continue
                    if language == "triton":
                        verdict_s.append(doc["timings"].get("test_s", 0.0) + doc["timings"].get("compile_s", 0.0))
                    for label, ms in sizes_ms(doc).items():
                        best[language][label] = min(ms, best[language].get(label, ms))
            common = [label for label in best["cuda"] if label in best["triton"]]
            if not common:
                continue
            ratio = geomean([best["triton"][k] / best["cuda"][k] for k in common])
            ratios.append(ratio)
            flag = "" if ratio <= 1.10 else "  > 1.10"
            per_size = "  ".join(f"{k}: {best['cuda'][k]:.4g}/{best['triton'][k]:.4g} ms" for k in common)
            compile_note = f"  triton compile+tests {min(verdict_s):.2f} s" if verdict_s else ""
            print(f"{exercise.id:34s} triton/cuda {ratio:5.2f}{flag}  ({per_size}){compile_note}")
    if ratios:
        print(f"geomean triton/cuda over {len(ratios)} exercises: {geomean(ratios):.3f}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
