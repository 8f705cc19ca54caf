"""The agreement table of tests/realworld/kernels/ (#12): each file's expected
verdict, the verdict on each backend available here, and the test time.

    PYTHONPATH=. python3 bench/realworld_agreement.py [--backends cuda,emu] [--out FILE]

On a GPU machine without the emulator's toolchain, `emu` is left out; CI's
tests/realworld/test_realworld_corpus.py asserts the emulator's verdicts.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kernels.pipeline import run_pipeline  # noqa: E402
from tests.realworld.test_realworld_corpus import (CORPUS, emulator_gap, exercise_of, expectation,  # noqa: E402
                                                   judge_on_gpu)


def backend(name: str):
    if name == "emu":
        from kernels.emu.target import EmuTarget
        from kernels.emu.build import toolchain_ok

        return EmuTarget() if toolchain_ok() else None
    return "cuda"  # judged in a fresh process per file (judge_on_gpu)


def judge(name: str, be, path: Path) -> dict:
    if be == "cuda":
        return judge_on_gpu(path)
    return run_pipeline(exercise_of(path), path.read_text(), be, bench=False, seed=5, emit=lambda e: None)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", default="cuda,emu")
    parser.add_argument("--out")
    args = parser.parse_args()
    backends = {name: backend(name) for name in args.backends.split(",")}
    backends = {k: v for k, v in backends.items() if v is not None}
    rows = ["| file | expected | " + " | ".join(f"{n} (test s)" for n in backends) + " |",
            "|---|---|" + "---|" * len(backends)]
    print("\n".join(rows), flush=True)  # then each row as it is judged: a run cut short keeps its rows
    for path in CORPUS:
        verdict, gpu_only = expectation(path)
        cells = []
        for name, be in backends.items():
            started = time.perf_counter()
            try:
                doc = judge(name, be, path)
            except Exception as exc:  # noqa: BLE001 - a row for every file, whatever happens
                cells.append(f"error: {str(exc)[:80]}")
                continue
            mark = "" if doc["verdict"] == verdict or (name == "emu" and (gpu_only or emulator_gap(path))) else " ✗"
            cells.append(f"{doc['verdict']}{mark} ({doc['timings']['test_s']:.2f}; {time.perf_counter() - started:.1f} wall)")
        rows.append(f"| {path.stem} | {verdict}{' (gpu-only)' if gpu_only else ''} | " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    text = "\n".join(rows)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
