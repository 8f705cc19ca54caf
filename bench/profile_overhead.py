"""What profiling adds to an accepted emulator judge run (#16), no GPU needed.

    PYTHONPATH=. python3 bench/profile_overhead.py [--repeats 7] [--exercise reduction.block_sum]
    PYTHONPATH=. python3 bench/profile_overhead.py --ncu [--out DIR]     # on a GPU with ncu: the ncu step's parts

Times `kernels.profile.run.profile_emulated` (the counted re-run of one case on
the profiler's program + the sm_90 NVRTC compile for ptxas's resources) on the
exercise's reference, after one warm-up call (which compiles the profiler's
program: printed apart), and prints the median and the case it profiled. This is the time the judge adds after the verdict; compare it
with `bench/emu_speed.py`'s "judge run".
"""

from __future__ import annotations

import argparse
import statistics
import time


def _wall(cmd: list[str], **kw) -> tuple[float, int]:
    import subprocess

    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return time.perf_counter() - started, done.returncode


def ncu_parts(exercise_id: str, out: str | None) -> None:
    """Where the GPU profile step's wall time goes (the first line is the machine's first ncu: cold)."""
    import json
    import sys
    import tempfile
    from pathlib import Path

    from kernels.profile import gpu as profile_gpu
    from kernels.exercises import find_exercise
    from kernels.compile import compile_submission
    from kernels.profile.run import _threads, resources

    exercise = find_exercise(exercise_id)
    source = exercise.reference_cu_path.read_text()
    ncu = profile_gpu.ncu_path()
    constants = compile_submission(source, exercise, None).constants
    index = max(range(len(exercise.tests)), key=lambda i: _threads(exercise, constants, i))
    res = resources(source, exercise, constants)
    rows = []

    def row(name: str, seconds: float, extra: str = "") -> None:
        rows.append({"step": name, "s": round(seconds, 3), "note": extra})
        print(f"{name:58s} {seconds:7.3f} s {extra}", flush=True)

    for attempt in ("cold", "warm", "warm"):
        started = time.perf_counter()
        got = profile_gpu.profile_on_gpu(exercise, source, index, 1, exercise.lesson_dir.parent, res, budget_s=60)
        row(f"profile_on_gpu (the judge's step) {attempt}", time.perf_counter() - started,
            "ok" if got else "NO PROFILE")
    # the judge's way (#16): the child starts before the benchmark and waits; the learner waits
    # only for finish() after it. A 3 s sleep stands in for the benchmark.
    from kernels.targets.cuda import CudaTarget

    arch = CudaTarget().arch
    for attempt in ("warm", "warm", "warm"):
        pending = profile_gpu.start_profile(exercise, source, index, 1, exercise.lesson_dir.parent, arch)
        time.sleep(3.0)
        started = time.perf_counter()
        got = pending.finish(res, budget_s=60)
        row(f"started before a 3 s benchmark, then released {attempt}", time.perf_counter() - started,
            "ok" if got else "NO PROFILE")
    row("ncu --version", _wall([ncu, "--version"])[0])
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "submission.cu")
        src.write_text(source)
        child = [sys.executable, "-m", "kernels.profile.gpu", "child", json.dumps(
            {"lessons": str(exercise.lesson_dir.parent), "exercise": exercise.id, "source": str(src),
             "case": index, "seed": 1})]
        root = Path(__file__).resolve().parent.parent
        row("python -c 'import cupy, kernels.targets.cuda'",
            _wall([sys.executable, "-c", "import cupy, kernels.targets.cuda"], cwd=root)[0])
        for _ in range(2):
            row("the child alone (python, cupy, NVRTC, one case), no ncu", _wall(child, cwd=root)[0])
        names = [k.name for k in exercise.kernels]
        base = profile_gpu.ncu_command(ncu, names, child)
        for label, cmd in (
                ("ncu, the judge's command", base),
                ("ncu + --cache-control none", base[:1] + ["--cache-control", "none"] + base[1:]),
                ("ncu, one metric (dram throughput)",
                 [c if not c.startswith("dram__") else "dram__throughput.avg.pct_of_peak_sustained_elapsed"
                  for c in base]),
                ("ncu + --replay-mode application", base[:1] + ["--replay-mode", "application"] + base[1:]),
        ):
            for _ in range(2):
                seconds, rc = _wall(cmd, cwd=root)
                row(label, seconds, f"rc {rc}")
    if out:
        Path(out, "ncu_parts.json").write_text(json.dumps(rows, indent=1))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--exercise", default="reduction.block_sum")
    parser.add_argument("--ncu", action="store_true", help="on a GPU: time the ncu step's parts")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.ncu:
        ncu_parts(args.exercise, args.out)
        return 0
    from kernels.exercises import find_exercise
    from kernels.compile import compile_submission
    from kernels.emu.target import EmuTarget
    from kernels.profile.run import profile_emulated

    exercise = find_exercise(args.exercise)
    source = exercise.reference_cu_path.read_text()
    backend = EmuTarget()
    compiled = compile_submission(source, exercise, backend.arch)
    program = backend.build(exercise, source, compiled)
    started = time.perf_counter()
    profile = profile_emulated(exercise, source, backend, program, compiled.constants, 1)  # warm-up
    first = time.perf_counter() - started  # compiles the profiler's program (the judge starts it beside the tests)
    times = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        profile_emulated(exercise, source, backend, program, compiled.constants, 1)
        times.append(time.perf_counter() - started)
    print(f"exercise           {exercise.id}, profiled case {profile['case'] if profile else None}")
    print(f"profile step       {statistics.median(times):.3f} s median of {args.repeats} "
          f"(min {min(times):.3f} s, max {max(times):.3f} s)")
    print(f"first call         {first:.3f} s (with the profiler program's compile, which the judge "
          f"overlaps with the tests)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
