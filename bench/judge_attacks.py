"""The job side's hostile submissions through a real Judge: verdict, wall time, peak memory, CPU.

    PYTHONPATH=. python3 bench/judge_attacks.py [--backend emu|cuda] [--out FILE]

Each attack class of issue #11 that the job process answers for is judged by
`kernels.judge.Judge` with a warm spare, as the web worker does, followed by
the correct reference (the judge must stay healthy). Columns: the verdict,
the wall time of `Judge.run`, the job's peak memory (`memory.peak` of its
cgroup, else `ru_maxrss` of the job process and the children it reaped — the
NVRTC helper among them) and its CPU time. The emulated program's own attacks
are bench/emu_attacks.py.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXERCISE = "reduction.block_sum"
CORRECT = (ROOT / "lessons" / "02-reduction" / "exercises" / "block_sum" / "reference.cu").read_text()
TEMPLATE_BOMB = CORRECT + """
template <int D, int W> struct Tree {
    typedef Tree<D - 1, W * 2 + 1> left;
    typedef Tree<D - 1, W * 2> right;
    static const int value = left::value + right::value;
};
template <int W> struct Tree<0, W> { static const int value = W; };
__global__ void bomb(int* out) { out[0] = Tree<26, 0>::value; }
"""
MACRO_BOMB = "#define A0 x\n" + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 31)) + \
    "__global__ void bomb(int* out) { int x = 0; A30; out[0] = x; }\n" + CORRECT
EMU_SPIN = "volatile unsigned long long s = 0; for (unsigned long long k = 0; k < 8000000000ull; ++k) s = s + k;"
GPU_SPIN = "long long t0 = clock64(); while (clock64() - t0 < 16000000000LL) { }"  # ~8 s


def slow_every_case(backend: str) -> str:
    """Correct, but about 8 s in every case: within run_s (10 s), past the tests' budget."""
    spin = GPU_SPIN if backend == "cuda" else EMU_SPIN
    return CORRECT.replace("    extern __shared__ float warp_sums[];",
                           "    extern __shared__ float warp_sums[];\n"
                           f"    if (blockIdx.x == 0 && threadIdx.x == 0) {{ {spin} }}", 1)


class KillJobOnce:
    """Plays the OOM killer: SIGKILLs the job process as the third case starts."""

    def __init__(self, judge) -> None:
        self.judge, self.done = judge, False

    def __call__(self, event: dict) -> None:
        if not self.done and event["stage"] == "test_start" and event["index"] == 2:
            self.done = True
            os.kill(self.judge.current_job.proc.pid, signal.SIGKILL)


def measure(judge, name: str, source: str, on_event=None) -> dict:
    started = time.monotonic()
    doc = judge.run(source, EXERCISE, bench=False, on_event=on_event)
    wall_s = time.monotonic() - started
    job = judge.current_job
    job.wait(30)
    return {"attack": name, "verdict": doc["verdict"], "wall_s": round(wall_s, 1),
            "peak_mb": round((job.peak_bytes or 0) / 2**20), "cpu_s": round(job.cpu_s or 0.0, 1),
            "limited_by": job.limited_by, "message": doc["message"][:120]}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="emu", choices=("emu", "cuda"))
    parser.add_argument("--out", help="also write the rows as JSON here")
    args = parser.parse_args()
    from kernels.judge import Judge

    rows = []
    with Judge(ROOT / "lessons", backend=args.backend) as judge:
        judge.wait_ready(120)
        attacks = [("NVRTC template bomb", TEMPLATE_BOMB, None), ("NVRTC macro bomb", MACRO_BOMB, None),
                   ("slow in every case", slow_every_case(args.backend), None),
                   ("job process SIGKILLed", CORRECT, KillJobOnce(judge))]
        for name, source, hook in attacks:
            rows.append(measure(judge, name, source, hook))
            rows.append(measure(judge, "  then a correct kernel", CORRECT))
    print(f"backend {args.backend}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print("| attack | verdict | wall s | peak MB | CPU s |\n|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['attack']} | {row['verdict']} | {row['wall_s']} | {row['peak_mb']} | {row['cpu_s']} |")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
