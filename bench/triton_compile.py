"""How long a Triton submission waits for its verdict, and where the time goes (#29).

For each exercise with a `[triton]` section (or those named), with its `reference.triton.py`:

* `start`: the sandbox's start and `import triton` alone (a program that imports it and ends);
* `compile`: `compile_triton` for the tests' cases only and for every case the judge runs
  (tests and benchmark), its binaries built one at a time (`--jobs 1`) and at once
  (`KDOJO_TRITON_COMPILE_JOBS`, default the cores up to 4), each the median of `--repeat`;
* `verdict`: submit → the judge's `tested` event through `kernels.judge.Judge` (the web
  worker's entry point) with the benchmark on, warm (the spare job process is ready), each
  submission a fresh file (a comment), the median of `--repeat`.

Target (issue #29): Triton submit → verdict on the GPU p50 <= 1.5 s warm, compile included.

    PYTHONPATH=. python3 bench/triton_compile.py [EXERCISE ...] [--repeat 3] [--jobs 4]
        [--no-judge | --judge-only] [--out FILE]

The GPU machine may have no bubblewrap: then run it with KDOJO_EMU_UNSANDBOXED=1 (the same
rlimits and seccomp filters, no namespaces) and say so with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernels.exercises import load_exercises  # noqa: E402
from kernels.triton import compile as triton_compile  # noqa: E402
from kernels.triton import jail  # noqa: E402

IMPORT_ONLY = "import sys\nsys.stdout.write('started\\n')\nimport triton\n"


def sandbox_start_s() -> float:
    """The sandbox's start, Python's and `import triton`, to the program's end."""
    work = jail.work_dir()
    script = work / "import_only.py"
    try:
        script.write_text(IMPORT_ONLY)
        started = time.perf_counter()
        outcome = jail.run_once(script, [], work, cpu_s=60, wall_s=120,
                                memory_bytes=jail.compile_memory_bytes(), spawn=True, writable=False)
        seconds = time.perf_counter() - started
        if outcome.returncode != 0:
            raise RuntimeError(outcome.stderr.decode(errors="replace")[-500:])
        return seconds
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compile_s(source: str, exercise, cases, jobs: int, repeat: int) -> tuple[float, int]:
    os.environ["KDOJO_TRITON_COMPILE_JOBS"] = str(jobs)
    seconds, binaries = [], 0
    for i in range(repeat):
        triton_compile._CACHE.clear()
        started = time.perf_counter()
        result = triton_compile.compile_triton(f"{source}\n# {i} {time.time_ns()}\n", exercise, "cuda", "sm_90",
                                               cases)
        seconds.append(time.perf_counter() - started)
        if not result.ok:
            raise RuntimeError(f"{exercise.id}: {result.log[:500]}")
        binaries = len(result.artifact.binaries)
    return statistics.median(seconds), binaries


def verdict_s(judge, exercise, source: str, repeat: int) -> list[float]:
    out = []
    for i in range(repeat):
        judge.wait_ready()
        tested: list[float] = []

        def on_event(event: dict, tested: list[float] = tested) -> None:
            if event.get("stage") == "tested":
                tested.append(time.monotonic())

        started = time.monotonic()
        doc = judge.run(f"{source}\n# submission {i} {time.time_ns()}\n", exercise.id, bench=True,
                        language="triton", on_event=on_event)
        if doc["verdict"] != "accepted":
            raise RuntimeError(f"{exercise.id}: {doc['verdict']}: {doc.get('message', '')[:300]}")
        out.append((tested[0] if tested else time.monotonic()) - started)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("exercises", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=triton_compile.compile_workers())
    parser.add_argument("--no-judge", action="store_true", help="compile times only")
    parser.add_argument("--judge-only", action="store_true", help="verdict times only")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    chosen = [e for e in load_exercises(ROOT / "lessons").values()
              if e.triton is not None and (not args.exercises or e.id in args.exercises)]
    if not chosen:
        print("no exercise with a Triton version matches", file=sys.stderr)
        return 2
    starts = [sandbox_start_s() for _ in range(args.repeat)]
    print(f"triton {jail.runtime().triton_version}; sandbox start + import triton: "
          f"median {statistics.median(starts):.2f} s ({', '.join(f'{s:.2f}' for s in starts)}); "
          f"cores {os.cpu_count()}; jobs {args.jobs}")
    rows = []
    for exercise in chosen:
        source = (exercise.folder / "reference.triton.py").read_text()
        tests = [dict(case.values) for case in exercise.tests]
        row = {"exercise": exercise.id}
        for label, cases in () if args.judge_only else (("tests", tests), ("all", None)):
            for jobs in (1, args.jobs):
                seconds, binaries = compile_s(source, exercise, cases, jobs, args.repeat)
                row[f"{label}_jobs{jobs}_s"] = round(seconds, 3)
                row[f"{label}_binaries"] = binaries
        rows.append(row)
        if not args.judge_only:
            print(json.dumps(row), flush=True)
    os.environ["KDOJO_TRITON_COMPILE_JOBS"] = str(args.jobs)
    if not args.no_judge:
        from kernels.judge import Judge

        with Judge(ROOT / "lessons", backend="cuda") as judge:
            judge.wait_ready()
            for row, exercise in zip(rows, chosen):
                times = verdict_s(judge, exercise, (exercise.folder / "reference.triton.py").read_text(), args.repeat)
                row["verdict_s"] = [round(t, 3) for t in times]
                print(f"{exercise.id:34s} verdict median {statistics.median(times):.2f} s "
                      f"({', '.join(f'{t:.2f}' for t in times)})", flush=True)
        every = [t for row in rows for t in row["verdict_s"]]
        print(f"verdict p50 over {len(every)} submissions: {statistics.median(every):.2f} s; "
              f"exercises with a median <= 1.5 s: {sum(statistics.median(r['verdict_s']) <= 1.5 for r in rows)}"
              f" of {len(rows)}")
    if args.out:
        Path(args.out).write_text(json.dumps({"start_s": starts, "jobs": args.jobs, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
