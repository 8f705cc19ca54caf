"""Does a spare's warm-up disturb another process's timed calls? (#26)

    PYTHONPATH=. python3 bench/spare_disturbance.py [--seconds 8]

Times a 5 µs and a 0.64 ms elementwise kernel with the judge's own
`kernels.timing.measure` over and over (one median per measurement), first
alone, then beside four loops of fresh processes that only create a CUDA
context, alone again, then beside two loops of fresh processes doing a job
process's whole warm-up (`preload()` and `warm()` of the cuda target). Prints
the median, p10, p90 and maximum of the medians for each phase. The judge
lets a spare create its context beside timed calls and keeps its GPU phase
off them (docs/judge.md "Isolation").
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

CONTEXT_ONLY = "import cupy, time; cupy.cuda.runtime.free(0); time.sleep(0.2)"
WHOLE_WARM_UP = "from kernels import targets; t = targets.create('cuda', None); t.preload(); t.warm()"


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _loops(code: str, count: int) -> list[subprocess.Popen]:
    loop = f"import subprocess, sys\nwhile True:\n    subprocess.run([sys.executable, '-c', {code!r}])\n"
    return [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(count)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="per phase")
    args = parser.parse_args()
    import cupy

    from kernels.timing import L2Flusher, measure

    flush = L2Flusher(cupy.cuda.runtime.getDeviceProperties(0)["l2CacheSize"])
    double = cupy.ElementwiseKernel("float32 x", "float32 y", "y = x * 2.0f", "kdojo_double")
    arrays = {name: (cupy.ones(n, dtype=cupy.float32), cupy.empty(n, dtype=cupy.float32))
              for name, n in (("5 us", 1 << 18), ("0.64 ms", 1 << 27))}

    def phase(label: str) -> None:
        medians: dict[str, list[float]] = {name: [] for name in arrays}
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            for name, (x, y) in arrays.items():
                medians[name].append(measure(lambda _rep: double(x, y), flush, cap_s=0.2).median_ms)
        for name, values in medians.items():
            print(f"{label:<34} {name:>8}: median {statistics.median(values):.5f} ms, p10 "
                  f"{_quantile(values, 0.1):.5f}, p90 {_quantile(values, 0.9):.5f}, max {max(values):.5f} "
                  f"({len(values)} measurements)", flush=True)

    phase("alone")
    for label, code, count in (("beside contexts being created", CONTEXT_ONLY, 4),
                               (None, None, 0),
                               ("beside whole warm-ups", WHOLE_WARM_UP, 2)):
        if code is None:
            phase("alone again")
            continue
        loops = _loops(code, count)
        try:
            time.sleep(1.5)  # the loops' first processes are past their imports
            phase(label)
        finally:
            for loop in loops:
                loop.kill()
                loop.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
