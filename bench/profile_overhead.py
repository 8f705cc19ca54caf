"""What profiling adds to an accepted emulator judge run (#16), no GPU needed.

    PYTHONPATH=. python3 bench/profile_overhead.py [--repeats 7] [--exercise reduction.block_sum]

Times `kernels.profile_run.profile_emulated` (the counted re-run of one case on
the check program + the sm_90 NVRTC compile for ptxas's resources) on the
exercise's reference, after one warm-up call, and prints the median and the
case it profiled. This is the time the judge adds after the verdict; compare it
with `bench/emu_speed.py`'s "judge run".
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--exercise", default="reduction.block_sum")
    args = parser.parse_args()
    from kernels.catalog import find_exercise
    from kernels.compile import compile_submission
    from kernels.emu.backend import EmuBackend
    from kernels.profile_run import profile_emulated

    exercise = find_exercise(args.exercise)
    source = exercise.reference_cu_path.read_text()
    backend = EmuBackend()
    compiled = compile_submission(source, exercise, backend.arch)
    program = backend.build(exercise, source, compiled.constants)
    profile = profile_emulated(exercise, source, backend, program, compiled.constants, 1)  # warm-up
    times = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        profile_emulated(exercise, source, backend, program, compiled.constants, 1)
        times.append(time.perf_counter() - started)
    print(f"exercise           {exercise.id}, profiled case {profile['case'] if profile else None}")
    print(f"profile step       {statistics.median(times):.3f} s median of {args.repeats} "
          f"(min {min(times):.3f} s, max {max(times):.3f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
