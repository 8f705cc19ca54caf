"""Every exercise's reference kernel through the GPU benchmark: its times against
the physical floor, and what fresh inputs plus verifying every timed call cost (#26).

    PYTHONPATH=. python3 bench/bench_integrity.py [--exercise ID ...] [--max-sizes N] [--out FILE]

Judges each exercise's own reference.cu with the benchmark (through
`kernels.judge.Judge`, the web worker's entry point) and prints one JSON line
per exercise: the verdict, and per size the median time, the floor, their
ratio (>= 1 for every honest kernel, else the floor is wrong), the samples,
and the benchmark stage's wall time. A reference refused or judged wrong is a
bug of the floor or of the fresh inputs: the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercise", action="append", default=[], help="an exercise id (default: all)")
    parser.add_argument("--max-sizes", type=int, default=None, help="only the first N benchmark sizes")
    parser.add_argument("--out", type=Path, default=None, help="also append the JSON lines here")
    args = parser.parse_args()
    from kernels.exercises import load_catalog
    from kernels.judge import Judge

    catalog = load_catalog(REPO / "lessons")[0]
    ids = args.exercise or sorted(i for i, e in catalog.items() if e.benchmark is not None)
    bad = 0
    with Judge(REPO / "lessons", backend="cuda") as judge:
        judge.wait_ready()
        for exercise_id in ids:
            source = (catalog[exercise_id].folder / "reference.cu").read_text()
            started = time.perf_counter()
            doc = judge.run(source, exercise_id, bench=True, max_bench_sizes=args.max_sizes)
            row = _row(exercise_id, doc, time.perf_counter() - started)
            bad += row["verdict"] != "accepted" or row["refused"] is not None
            line = json.dumps(row)
            print(line, flush=True)
            if args.out:
                with args.out.open("a") as out:
                    out.write(line + "\n")
    return 1 if bad else 0


def _row(exercise_id: str, doc: dict, wall_s: float) -> dict:
    bench = doc.get("benchmark") or {}
    sizes = [{"label": s["label"], "ms": s["ms"], "floor_ms": s.get("floor_ms"), "floor": s.get("floor"),
              "ratio": round(s["ms"] / s["floor_ms"], 2) if s.get("floor_ms") else None, "reps": s["reps"],
              "reference_on": s.get("reference_on")}
             for s in bench.get("sizes", [])]
    return {"exercise": exercise_id, "verdict": doc["verdict"], "message": doc["message"][:300],
            "device": doc["device"].get("name"), "sizes": sizes, "refused": bench.get("refused"),
            "floor_gbps": bench.get("floor_gbps"), "peak_gbps": bench.get("peak_gbps"),
            "bench_s": round(doc["timings"].get("bench_s", 0.0), 2), "wall_s": round(wall_s, 2)}


if __name__ == "__main__":
    sys.exit(main())
