"""The lessons' slow/fast pairs (#26, bench/profile_pairs.toml): the emulator's estimate of each
file at the exercise's benchmark size and its findings, and with --gpu the time a GPU measures at
the exercise's largest benchmark case, as a markdown table.

    PYTHONPATH=. python3 bench/profile_pairs.py                   # the emulator's side, anywhere
    PYTHONPATH=. python3 bench/profile_pairs.py --gpu             # and the measured times (a GPU, CuPy)
    PYTHONPATH=. python3 bench/profile_pairs.py --gpu-only T.jsonl  # the measured times alone (no emulator)
    PYTHONPATH=. python3 bench/profile_pairs.py --exercise shared-tiling.transpose
    PYTHONPATH=. python3 bench/profile_pairs.py --counts bench/data/profile-agreement-2026-11-29/emu.jsonl.gz --store-resources

A pair is "ranked" when the estimate puts slow above fast, "found" when the slow file's findings
include the expected one. --gpu times each file as the benchmark does (L2 flushed, median).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tomllib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
PAIRS = REPO / "bench" / "profile_pairs.toml"
# H100 times of lesson files at the largest benchmark case (bench/profile_agreement.py; no baselines)
STORED_TIMES = REPO / "bench" / "data" / "profile-agreement-2026-11-27b" / "times.jsonl"
SEED = 1


def stored_h100_ms() -> dict[str, float]:
    """{"exercise/file": ms} from STORED_TIMES."""
    import json

    rows = (json.loads(line) for line in STORED_TIMES.read_text().splitlines() if line.strip())
    return {r["file"]: r["ms"] for r in rows if "ms" in r}


def load_pairs(path: Path = PAIRS) -> list[dict[str, Any]]:
    pairs = tomllib.loads(path.read_text())["pair"]
    for p in pairs:
        missing = {"exercise", "slow", "fast", "finding"} - set(p)
        if missing:
            raise ValueError(f"{path.name}: a pair of {p.get('exercise', '?')} lacks {', '.join(sorted(missing))}")
    return pairs


def as_submission(exercise: Any, file: str) -> tuple[Any, str]:
    """(exercise, source) to judge `file` as: a baseline ("baseline:NAME") runs its own launch plan,
    its kernels declared with the exercise's signature under the baseline's kernel names."""
    if not file.startswith("baseline:"):
        return exercise, (exercise.folder / file).read_text()
    name = file.split(":", 1)[1]
    base = next(b for b in exercise.benchmark.baselines if b.name == name)
    source = base.source.read_text()
    kernels = tuple(_declared(source, k) for k in dict.fromkeys(l.kernel for l in base.launches))
    return dataclasses.replace(exercise, kernels=kernels, launches=base.launches), source


def _declared(source: str, name: str) -> Any:
    """The kernel `name` as the baseline's own source declares it (a baseline may take other
    parameters than the exercise's kernel: a one-thread scan has no tile state)."""
    import re

    from kernels.spec import KernelSpec, parse_signature

    signature = " ".join(re.search(r'extern "C" __global__ void ' + name + r"\(([^)]*)\)", source)[1].split())
    return KernelSpec(name, signature, parse_signature(signature))


def emulator_profile(exercise_id: str, file: str) -> dict[str, Any] | None:
    """The emulator's profile of `file` (kernels.profile.run.profile_emulated), or None."""
    from kernels.exercises import find_exercise
    from kernels.compile import compile_submission
    from kernels.emu.target import EmuTarget
    from kernels.profile.run import profile_emulated

    exercise, source = as_submission(find_exercise(exercise_id), file)
    compiled = compile_submission(source, exercise, None)
    if not compiled.ok:
        raise RuntimeError(f"{exercise_id}/{file}: {compiled.status}")
    backend = EmuTarget()
    program = backend.build(exercise, source, compiled)
    try:
        return profile_emulated(exercise, source, backend, program, compiled.constants, SEED)
    finally:
        program.handle.close()


def gpu_ms(exercise_id: str, file: str) -> float | None:
    """The file's median time at the exercise's largest benchmark case on this GPU (CuPy)."""
    import cupy

    from kernels.bench_run import _CaseData
    from kernels.exercises import find_exercise
    from kernels.compile import compile_submission
    from kernels.targets.cuda import CudaTarget
    from kernels.plan import resolve_launches
    from kernels.profile.model import largest_case
    from kernels.timing import L2Flusher, measure

    exercise, source = as_submission(find_exercise(exercise_id), file)
    backend = CudaTarget()
    compiled = compile_submission(source, exercise, backend.arch)
    program = backend.build(exercise, source, compiled)
    case = largest_case(exercise, compiled.constants)
    data = _CaseData(exercise, case, compiled, SEED)
    launches = resolve_launches(exercise.launches, data.env)
    summary = measure(lambda rep: backend.launch_all(program, launches, data.arrays(rep)),
                      L2Flusher(backend.l2_bytes), reset=data.prepare, cap_s=5.0, min_reps=5, gate=True)
    del data
    cupy.get_default_memory_pool().free_all_blocks()
    return round(summary.median_ms, 4)


def time_on_gpu(pairs: list[dict[str, Any]], out_path: str) -> int:
    """Every file of `pairs` timed on this GPU (gpu_ms), once each, a JSON line per file appended
    to `out_path` and printed: {exercise, file, ms} or {…, skipped} for a baseline that the
    benchmark runs only up to max_n, below the largest case."""
    import json

    from kernels.exercises import find_exercise
    from kernels.plan import env_for
    from kernels.profile.model import largest_case

    seen: set[tuple[str, str]] = set()
    with open(out_path, "a") as out:
        for p in pairs:
            exercise = find_exercise(p["exercise"])
            n = env_for(largest_case(exercise, {}), {})[exercise.dims[0]]
            for file in (p["slow"], p["fast"]):
                if (p["exercise"], file) in seen:
                    continue
                seen.add((p["exercise"], file))
                row: dict[str, Any] = {"exercise": p["exercise"], "file": file}
                base = next((b for b in exercise.benchmark.baselines if f"baseline:{b.name}" == file), None)
                if base is not None and not base.runs_at(n):
                    row["skipped"] = f"max_n {base.max_n} < {n}"
                else:
                    row["ms"] = gpu_ms(p["exercise"], file)
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(json.dumps(row), flush=True)
    return 0


def from_counts(emu_jsonl: str, store_resources: bool = False) -> dict[str, float]:
    """{"exercise/file": estimate ms}: the model as it is now, re-run on the emulator's counts stored
    by bench/profile_agreement.py --backend emu (files the stored H100 times also have).
    NVRTC's resources come from resources.json beside the counts where it holds the same
    source and NVRTC; `store_resources` rewrites it."""
    from profile_agreement import _reestimator  # bench/ is on sys.path when run from here

    return {file: est for file, _, est, _ in _reestimator(emu_jsonl, str(STORED_TIMES), store_resources)({})}


def counts_table(pairs: list[dict[str, Any]], emu_jsonl: str) -> list[tuple[dict[str, Any], float, float, float, float]]:
    """(pair, estimate slow, estimate fast, H100 slow, H100 fast) for every pair of two lesson files
    (not baselines) that the stored counts and H100 times both have."""
    est, h100 = from_counts(emu_jsonl), stored_h100_ms()
    out = []
    for p in pairs:
        keys = [f"{p['exercise']}/{p[s]}" for s in ("slow", "fast")]
        if all(k in est and k in h100 for k in keys):
            out.append((p, est[keys[0]], est[keys[1]], h100[keys[0]], h100[keys[1]]))
    return out


def _row(pair: dict[str, Any], gpu: bool, cache: dict, stored: dict[str, float]) -> list[str]:
    got = {}
    for side in ("slow", "fast"):
        key = (pair["exercise"], pair[side])
        if key not in cache:
            try:
                prof = emulator_profile(*key)
            except Exception as exc:  # noqa: BLE001 — one broken file must not stop the table
                prof = {"error": f"{type(exc).__name__}: {exc}"[:120]}
            cache[key] = (prof or {}, gpu_ms(*key) if gpu else None)
        got[side] = cache[key]
    est = [(got[s][0].get("estimate") or {}).get("time_ms") for s in ("slow", "fast")]
    findings = [f["code"] for f in got["slow"][0].get("findings", [])]
    ranked = "yes" if None not in est and est[0] > est[1] else "NO"
    found = "-" if not pair["finding"] else ("yes" if pair["finding"] in findings else "NO")
    cells = [pair["exercise"], pair["slow"], pair["fast"], got["slow"][0].get("case", "?"),
             *(f"{e:.4g}" if e is not None else got[s][0].get("error", "none")
               for e, s in zip(est, ("slow", "fast"))), ranked, pair["finding"] or "-", found]
    if gpu:
        measured = [got[s][1] for s in ("slow", "fast")]
        cells += [*(f"{m:.4g}" if m else "?" for m in measured),
                  "yes" if None not in measured and measured[0] > measured[1] else "NO"]
    h100 = [stored.get(f"{pair['exercise']}/{pair[s]}") for s in ("slow", "fast")]
    cells.append(" / ".join(f"{m:.4g}" if m else "-" for m in h100))
    lesson = pair.get("lesson_ms")
    cells.append(f"{lesson[0]:g} / {lesson[1]:g} ({pair.get('lesson_case', '')})" if lesson else "")
    return cells


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpu", action="store_true", help="also time each file on this GPU")
    parser.add_argument("--gpu-only", metavar="JSONL",
                        help="no emulator: time each file on this GPU, a JSON line each appended to JSONL "
                             "(a one-thread baseline past its max_n is not run)")
    parser.add_argument("--exercise", help="only this exercise's pairs")
    parser.add_argument("--counts", metavar="EMU_JSONL",
                        help="no emulator run: the model on counts stored by profile_agreement.py --backend emu, "
                             "against the stored H100 times")
    parser.add_argument("--store-resources", action="store_true",
                        help="(with --counts) rewrite resources.json beside the counts: NVRTC's constants "
                             "and ptxas resources per file, so later runs compile nothing it holds")
    args = parser.parse_args()
    pairs = [p for p in load_pairs() if args.exercise in (None, p["exercise"])]
    if not pairs:
        print(f"profile_pairs: no pair for {args.exercise!r}", file=sys.stderr)
        return 2
    if args.gpu_only:
        return time_on_gpu(pairs, args.gpu_only)
    if args.counts:
        if args.store_resources:
            from_counts(args.counts, store_resources=True)
        print("| exercise | slow | fast | est. slow ms | est. fast ms | H100 slow ms | H100 fast ms | ranked |\n"
              "|---|---|---|---|---|---|---|---|")
        for p, es, ef, gs, gf in counts_table(pairs, args.counts):
            print(f"| {p['exercise']} | {p['slow']} | {p['fast']} | {es:.4g} | {ef:.4g} | {gs:.4g} | {gf:.4g} | "
                  f"{'yes' if (es > ef) == (gs > gf) else 'NO'} |")
        return 0
    head = ["exercise", "slow", "fast", "counted case", "est. slow ms", "est. fast ms", "ranked", "finding", "found"]
    if args.gpu:
        head += ["GPU slow ms", "GPU fast ms", "GPU ranks so"]
    head += ["stored H100 ms", "lesson table (H100 ms)"]
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    cache: dict = {}
    stored = stored_h100_ms()
    for pair in pairs:
        print("| " + " | ".join(_row(pair, args.gpu, cache, stored)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
