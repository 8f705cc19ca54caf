"""A class submitting together: a burst of N submissions through one judge (#26).

    PYTHONPATH=. python3 bench/judge_burst.py [--n 40] [--inline N] [--profiles N] [--out FILE]

Judges `reduction.block_sum`'s reference N times back to back through
`kernels.judge.Judge(defer_profile=True)` (the web worker's settings: the ncu
profile is left out of the run and made later by `Judge.profile()`), and
reports results per minute, the verdict's latency (from `run()` to the
`tested` event) and the result's (to the document, benchmark included), as
p50/p95. Then, with the queue idle, `--profiles` deferred profiles, timed
from the call to the profile (the result is already stored by then).
`--inline N` first judges N submissions with the profile inside the run (the
behaviour before #26) for comparison. Targets on an H100/H200: >= 60 results
a minute with the benchmark; verdict p50 <= 0.3 s; a profile <= 10 s after
the result when idle.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXERCISE = "reduction.block_sum"
SOURCE = REPO / "lessons" / "02-reduction" / "exercises" / "block_sum" / "reference.cu"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _verdict_clock(sent: float, seen: list[float], stages: dict[str, float]):
    def on_event(event: dict) -> None:
        now = time.perf_counter() - sent
        stage = str(event.get("stage"))
        if stage == "tested" and not seen:
            seen.append(now)
        name = f"{stage}_{event['index']}" if stage == "benchmarking" and "index" in event else stage
        stages.setdefault(name, now)
    return on_event


def burst(judge, n: int) -> dict:
    source = SOURCE.read_text()
    verdict_s, result_s, verdicts = [], [], []
    marks: dict[str, list[float]] = {}
    started = time.perf_counter()
    for _ in range(n):
        sent = time.perf_counter()
        seen: list[float] = []
        stages: dict[str, float] = {}
        doc = judge.run(source, EXERCISE, bench=True, on_event=_verdict_clock(sent, seen, stages))
        result_s.append(time.perf_counter() - sent)
        stages["result"] = result_s[-1]
        for name, at in stages.items():
            marks.setdefault(name, []).append(at)
        verdict_s.append(seen[0] if seen else result_s[-1])
        verdicts.append(doc["verdict"])
    wall_s = time.perf_counter() - started
    return {"n": n, "wall_s": round(wall_s, 2), "results_per_min": round(60 * n / wall_s, 1),
            "verdict_p50_s": round(statistics.median(verdict_s), 3),
            "verdict_p95_s": round(percentile(verdict_s, 0.95), 3),
            "result_p50_s": round(statistics.median(result_s), 3),
            "result_p95_s": round(percentile(result_s, 0.95), 3),
            "result_s": [round(r, 3) for r in result_s],  # each submission's, in order (the first pays the
            # judge's one-time measurements: the copy bandwidth, the baselines)
            "accepted": verdicts.count("accepted"), "last_doc_has_profile": "profile" in doc,
            # when each event arrived, seconds after the call (median over the burst)
            "events_p50_s": {name: round(statistics.median(at), 3) for name, at in marks.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--inline", type=int, default=0, help="first, N runs with the profile inside")
    parser.add_argument("--profiles", type=int, default=3, help="deferred profiles timed when idle")
    parser.add_argument("--spares", type=int, default=None, help="warm job processes (the judge's default)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    from kernels.judge import Judge

    report: dict = {}
    if args.inline:
        with Judge(REPO / "lessons", backend="cuda") as judge:
            judge.wait_ready()
            report["inline_profile"] = burst(judge, args.inline)
    spares = {} if args.spares is None else {"spares": args.spares}
    with Judge(REPO / "lessons", backend="cuda", defer_profile=True, **spares) as judge:
        judge.wait_ready()
        report["deferred_profile"] = burst(judge, args.n)
        source = SOURCE.read_text()
        profile_s = []
        for _ in range(args.profiles):
            judge.wait_ready()  # the queue is idle
            sent = time.perf_counter()
            found = judge.profile(source, EXERCISE)
            profile_s.append(round(time.perf_counter() - sent, 3))
            report["profile_source"] = (found or {}).get("source")
        report["idle_profile_s"] = profile_s
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
