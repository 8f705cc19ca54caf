"""The profiler's emulator counts against Nsight Compute's, and the emulator's
estimated time against the time measured on a GPU, kernel by kernel (#16).

    # every lesson's reference, starter (where the emulator accepts it) and solutions/correct/*.cu
    PYTHONPATH=. python3 bench/profile_agreement.py --backend emu --all > emu.jsonl          # anywhere (CPU)
    PYTHONPATH=. python3 bench/profile_agreement.py --backend cuda --all --out DIR \
        --files emu.jsonl                                                                   # on a GPU with ncu
    PYTHONPATH=. python3 bench/profile_agreement.py --compare emu.jsonl DIR/ncu.jsonl --times DIR/times.jsonl
    PYTHONPATH=. python3 bench/profile_agreement.py --fit emu.jsonl DIR/times.jsonl    # the fitted constants

The GPU side profiles one test case of each exercise (the largest with at
most 65,536 threads), with the same inputs (seed 1); the emulator, since #26,
a sample of the blocks of a benchmark case (kernels/profile/run.py), or that
test case where it cannot sample: a ratio (sectors per request) compares
across the two where the access pattern does not change with the size.
The GPU side runs every file's case in ONE process under ONE `ncu` (a process
per file would pay ncu's start-up ~100 times), and times every file at the
exercise's largest benchmark size with CUDA events (L2 flushed before each
call, median of --reps). `--compare` prints the agreement table (sectors,
shared wavefronts per request, lanes active: emulator vs ncu) and the
estimate table (estimated vs measured time: Spearman rank correlation, median
absolute error, the worst kernels).

Without --all the first slice's seven files are used (quick).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
FILES = [  # (exercise, file relative to the exercise folder, kernel renamed from → to)
    ("reduction.block_sum", "reference.cu", None),
    ("coalescing.vector_copy", "reference.cu", None),
    ("coalescing.gather", "reference.cu", None),
    ("shared-tiling.transpose", "reference.cu", None),
    ("shared-tiling.transpose", "solutions/correct/direct_no_shared.cu", None),
    ("shared-tiling.transpose", "baselines/unpadded.cu", ("transpose_unpadded", "transpose")),
    ("histogram.bytes", "reference.cu", None),
]
KEYS = ("global_load_sectors_per_request", "global_store_sectors_per_request", "shared_wavefronts_per_request",
        "warp_execution_efficiency_pct")
SEED = 1


def all_files(starters_ok: set[str] | None = None) -> list[tuple[str, str, None]]:
    """Every exercise's reference, starter (if accepted: `starters_ok` None = all) and correct solutions."""
    from kernels.exercises import load_exercises

    files = []
    for ex in load_exercises().values():
        files.append((ex.id, "reference.cu", None))
        if starters_ok is None or ex.id in starters_ok:
            files.append((ex.id, "starter.cu", None))
        files += [(ex.id, str(p.relative_to(ex.folder)), None)
                  for p in sorted((ex.folder / "solutions/correct").glob("*.cu"))]
    return files


def _source(exercise, rel: str, rename) -> str:
    source = (exercise.folder / rel).read_text()
    return source.replace(*rename) if rename else source


def measure_emu(files) -> None:
    """One JSON line per (file, kernel launch): the emulator's metrics, raw counts and estimate."""
    from kernels.exercises import find_exercise
    from kernels.compile import compile_submission
    from kernels.emu.target import EmuTarget
    from kernels.judge import Judge

    backend = EmuTarget()
    judge = Judge(backend="emu")
    with judge:
        for exercise_id, rel, rename in files:
            exercise = find_exercise(exercise_id)
            source = _source(exercise, rel, rename)
            file = f"{exercise_id}/{rel}"
            try:
                if rel == "starter.cu":  # profiled only where the emulator accepts it
                    verdict = judge.run(source, exercise_id, bench=False)["verdict"]
                    if verdict != "accepted":
                        print(json.dumps({"file": file, "error": f"starter {verdict}"}), flush=True)
                        continue
                compiled = compile_submission(source, exercise, None)
                program = backend.build(exercise, source, compiled)
                started = time.perf_counter()
                profile = _profile_emulated(exercise, source, backend, program, compiled.constants)
                seconds = time.perf_counter() - started
            except Exception as exc:  # noqa: BLE001 — one bad file must not stop the table
                print(json.dumps({"file": file, "error": f"{type(exc).__name__}: {exc}"[:300]}), flush=True)
                continue
            if not profile:
                print(json.dumps({"file": file, "error": "no profile"}), flush=True)
                continue
            for i, k in enumerate(profile["kernels"]):
                print(json.dumps({"file": file, "exercise": exercise_id, "launch": i, "kernel": k["name"],
                                  "case": profile["case"], **{key: k["metrics"][key] for key in KEYS},
                                  "counts": k.get("_counts"), "profile_s": round(seconds, 3)}), flush=True)
            print(json.dumps({"file": file, "exercise": exercise_id, "estimate": profile.get("estimate")}),
                  flush=True)


def _profile_emulated(exercise, source, backend, program, constants):
    """profile_emulated, keeping each launch's raw counts (for the agreement table)."""
    from kernels.profile import emu as profile_emu

    kept: list = []
    original = profile_emu.sample_scaled

    def counting(*args, **kwargs):  # each launch's counts as the profile read them (#26: the grid's)
        got = original(*args, **kwargs)
        kept.append(got)
        return got

    profile_emu.sample_scaled = counting
    try:
        from kernels.profile.run import profile_emulated

        profile = profile_emulated(exercise, source, backend, program, constants, SEED)
    finally:
        profile_emu.sample_scaled = original
    if profile:
        for k, c in zip(profile["kernels"], kept):
            k["_counts"] = c
    return profile


# ---------------------------------------------------------------- the GPU side

NCU_EXTRA = (  # beside kernels.profile.gpu.NCU_METRICS; each kept only where this ncu knows it
    "gpu__time_duration.sum", "smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
    "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors_srcunit_tex.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum", "smsp__sass_inst_executed_op_global_ld.sum",
    "smsp__sass_inst_executed_op_global_st.sum", "smsp__sass_inst_executed_op_global_atom.sum",
    "smsp__sass_inst_executed_op_global_red.sum", "smsp__sass_inst_executed_op_ld.sum",
    "smsp__sass_inst_executed_op_st.sum", "smsp__sass_inst_executed_op_memory.sum",
    "smsp__sass_thread_inst_executed_op_memory_pred_on.sum", "smsp__sass_thread_inst_executed_op_global_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_shared_pred_on.sum", "smsp__sass_thread_inst_executed_op_ld_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_st_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_global_ld_pred_on.sum", "smsp__sass_thread_inst_executed_op_global_st_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_shared_ld_pred_on.sum", "smsp__sass_thread_inst_executed_op_shared_st_pred_on.sum",
    "smsp__thread_inst_executed_pred_on.sum", "sm__cycles_elapsed.avg.per_second",
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
)


def _known_metrics(ncu: str, out: Path) -> set[str]:
    names: set[str] = set()
    for extra in (["--csv"], []):
        done = subprocess.run([ncu, "--query-metrics", *extra], capture_output=True, text=True, timeout=60)
        (out / "ncu-query-metrics.txt").write_text(done.stdout[-400000:] + done.stderr[-2000:])
        for line in done.stdout.splitlines():
            first = line.replace(",", " ").split(" ")[0].strip().strip('"')
            if "__" in first:
                names.add(first)
        if names:
            break
    return names


def _case_for(exercise, constants):
    from kernels.profile.run import pick_case

    picked = pick_case(exercise, constants)
    return None if picked is None else picked[0]


def ncu_child(job_path: str) -> int:
    """Under ncu: every file's profiled case once, in order; writes the launch list."""
    import cupy as cp
    import numpy as np

    from bench.reference_kernels import compile_module, launch_all
    from kernels.buffers import storage_dtype
    from kernels.exercises import find_exercise
    from kernels.plan import buffer_shapes, case_dict, env_for, load_reference, resolve_launches

    job = json.loads(Path(job_path).read_text())
    order, log = [], open(job["log"], "w")
    for exercise_id, rel in job["files"]:
        try:
            exercise = find_exercise(exercise_id)
            source = (exercise.folder / rel).read_text()
            _, constants, functions = compile_module(cp, source, exercise, [k.name for k in exercise.kernels])
            index = _case_for(exercise, constants)
            if index is None:
                log.write(f"{exercise_id}/{rel}: no profiled case\n")
                continue
            case = exercise.tests[index]
            env = env_for(case, constants)
            inputs = load_reference(exercise).generate(case_dict(case, constants), np.random.default_rng([SEED, index]))
            shapes = buffer_shapes(exercise, env)
            arrays = {b.name: cp.asarray(inputs[b.name]) if b.name in inputs else
                      cp.zeros(shapes[b.name], dtype=storage_dtype(b.dtype)) for b in exercise.buffers}
            launches = resolve_launches(exercise.launches, env)
            cp.cuda.runtime.deviceSynchronize()
            launch_all(cp, functions, launches, arrays)
            cp.cuda.runtime.deviceSynchronize()
            order += [{"file": f"{exercise_id}/{rel}", "exercise": exercise_id, "launch": i, "kernel": l.kernel,
                       "case": case.label} for i, l in enumerate(launches)]
            log.write(f"{exercise_id}/{rel}: {len(launches)} launches\n")
        except Exception as exc:  # noqa: BLE001
            log.write(f"{exercise_id}/{rel}: {type(exc).__name__}: {str(exc)[:300]}\n")
        log.flush()
    Path(job["order"]).write_text(json.dumps(order))
    return 0


def measure_gpu(files, out: Path, reps: int, deadline_s: float, skip_ncu: bool = False) -> None:
    """ncu over every file's profiled case (one process), then CUDA-event timings at the largest size."""
    from kernels.profile import gpu as profile_gpu
    from kernels.exercises import find_exercise

    started = time.monotonic()
    ncu = None if skip_ncu else profile_gpu.ncu_path()
    metrics = list(profile_gpu.metrics())
    scratch = Path(tempfile.mkdtemp(prefix="kdojo-agree-"))  # what need not come back ($OUT keeps few files)
    if ncu:
        known = _known_metrics(ncu, scratch)
        metrics += [m for m in NCU_EXTRA if m.split(".")[0] in known and m not in metrics]
        (out / "metrics-used.txt").write_text("\n".join(metrics))
        names = sorted({k.name for ex_id, _, _ in files for k in find_exercise(ex_id).kernels})
        job = scratch / "job.json"
        job.write_text(json.dumps({"files": [[e, r] for e, r, _ in files], "order": str(out / "order.json"),
                                   "log": str(scratch / "child.log")}))
        cmd = [ncu, "--csv", "--print-units", "base", "--clock-control", "none", "--metrics", ",".join(metrics),
               "-k", f"regex:^({'|'.join(names)})$", sys.executable, str(Path(__file__).resolve()),
               "--ncu-child", str(job)]
        t0 = time.monotonic()
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=deadline_s * 0.5, cwd=REPO)
            stdout, rc = done.stdout, done.returncode
            (scratch / "ncu-stderr.txt").write_text(done.stderr[-20000:])
        except subprocess.TimeoutExpired as exc:
            stdout, rc = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or ""), -1
        (out / "ncu.csv").write_text(stdout)
        print(f"ncu over {len(files)} files: rc {rc}, {time.monotonic() - t0:.1f} s", flush=True)
        write_ncu_rows(stdout, out)
    time_all(files, out, reps, started + deadline_s)


def write_ncu_rows(stdout: str, out: Path) -> None:
    from kernels.profile import gpu as profile_gpu

    order_path = out / "order.json"
    order = json.loads(order_path.read_text()) if order_path.exists() else []
    launches = sorted(profile_gpu.parse_csv(stdout), key=lambda l: int(l["id"]))
    with open(out / "ncu.jsonl", "w") as f:
        if len(launches) != len(order):
            print(f"ncu launches {len(launches)} != child launches {len(order)}: matched by name in order",
                  flush=True)
        i = 0
        for want in order:  # in order; a launch ncu skipped is looked for by kernel name
            while i < len(launches) and launches[i]["kernel"] != want["kernel"]:
                i += 1
            if i >= len(launches):
                break
            m = launches[i]["metrics"]
            f.write(json.dumps({**want, **_ncu_keys(m), "raw": m}) + "\n")
            i += 1


def _ncu_keys(m: dict) -> dict:
    from kernels.profile.gpu import metrics_from_ncu

    got = metrics_from_ncu(m)
    return {key: got[key] for key in KEYS}


def time_all(files, out: Path, reps: int, deadline: float) -> None:
    """CUDA-event time of every file at the exercise's largest benchmark case (+ the framework for the reference)."""
    import cupy as cp
    import numpy as np

    from bench.reference_kernels import Timer, compile_module, launch_all
    from kernels.buffers import storage_dtype
    from kernels.exercises import find_exercise
    from kernels.plan import buffer_shapes, case_dict, env_for, load_reference, resolve_launches
    from kernels.profile.model import largest_case

    timer = Timer(cp, reps)
    by_exercise: dict[str, list[str]] = {}
    for e, r, _ in files:
        by_exercise.setdefault(e, []).append(r)
    with open(out / "times.jsonl", "w") as f:
        for exercise_id, rels in by_exercise.items():
            if time.monotonic() > deadline:
                f.write(json.dumps({"exercise": exercise_id, "error": "out of time"}) + "\n")
                continue
            exercise = find_exercise(exercise_id)
            if exercise.benchmark is None:
                continue
            arrays = None
            try:
                for rel in rels:
                    source = (exercise.folder / rel).read_text()
                    _, constants, functions = compile_module(cp, source, exercise, [k.name for k in exercise.kernels])
                    case = largest_case(exercise, constants)
                    env = env_for(case, constants)
                    if arrays is None:
                        t0 = time.monotonic()
                        inputs = load_reference(exercise).generate(case_dict(case, constants),
                                                                   np.random.default_rng([SEED, 1000]))
                        shapes = buffer_shapes(exercise, env)
                        arrays = {b.name: cp.asarray(inputs[b.name]) if b.name in inputs else
                                  cp.zeros(shapes[b.name], dtype=storage_dtype(b.dtype)) for b in exercise.buffers}
                        del inputs
                        gen_s = time.monotonic() - t0
                    scratch = [arrays[b.name] for b in exercise.buffers if b.role == "scratch" and b.init == "zeros"]
                    launches = resolve_launches(exercise.launches, env)
                    ms = timer.median_ms(lambda: launch_all(cp, functions, launches, arrays),
                                         lambda: [a.fill(0) for a in scratch])
                    row = {"file": f"{exercise_id}/{rel}", "exercise": exercise_id, "case": case.label, "ms": ms,
                           "gen_s": round(gen_s, 2)}
                    if rel == "reference.cu":
                        framework = getattr(load_reference(exercise), "framework", None)
                        if framework is not None:
                            try:
                                row["framework_ms"] = timer.median_ms(lambda: framework(arrays, case_dict(case, constants)))
                            except Exception as exc:  # noqa: BLE001
                                row["framework_error"] = str(exc)[:200]
                    f.write(json.dumps(row) + "\n")
                    f.flush()
            except Exception as exc:  # noqa: BLE001
                f.write(json.dumps({"exercise": exercise_id, "error": f"{type(exc).__name__}: {str(exc)[:300]}"}) + "\n")
            arrays = None
            cp.get_default_memory_pool().free_all_blocks()
            print(f"timed {exercise_id} ({time.monotonic() - deadline:+.0f} s to the deadline)", flush=True)


# ---------------------------------------------------------------- tables


def _load(path: str) -> list[dict]:
    """A .jsonl file, or a gzipped one (bench/data/ keeps the measured sides that way)."""
    raw = Path(path).read_bytes()
    text = (gzip.decompress(raw) if path.endswith(".gz") else raw).decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r

    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return cov / den if den else float("nan")


def compare(emu_path: str, ncu_path: str, times_path: str | None) -> None:
    emu = {(r["file"], r.get("launch", 0)): r for r in _load(emu_path) if "kernel" in r}
    ncu = {(r["file"], r.get("launch", 0)): {**r, **(_ncu_keys(r["raw"]) if "raw" in r else {})}
           for r in _load(ncu_path) if "kernel" in r}  # metrics recomputed from the raw counters
    print("| file | kernel | " + " | ".join(f"{k} emu / ncu" for k in KEYS) + " |")
    print("|---|---|" + "---|" * len(KEYS))
    within = {k: [0, 0] for k in KEYS}
    for key in emu:
        if key not in ncu:
            continue
        cells = []
        for k in KEYS:
            a, b = emu[key].get(k), ncu[key].get(k)
            diff = ""
            if a is not None and b:
                rel = (a - b) / b
                diff = f" ({100 * rel:+.0f}%)"
                within[k][1] += 1
                within[k][0] += abs(rel) <= 0.10
            cells.append(f"{a} / {b}{diff}")
        print(f"| {key[0]} | {emu[key]['kernel']} | " + " | ".join(cells) + " |")
    print()
    for k, (ok, n) in within.items():
        print(f"{k}: {ok} of {n} kernels within 10%")
    # the emulator's ways of counting lanes active (raw counts, kernels/emu/runtime/kdojo_profile.cpp)
    # against ncu's warp execution efficiency: which one agrees
    for name, (num, den) in LANE_VARIANTS.items():
        ok = n = 0
        for key in emu:
            c, b = emu[key].get("counts") or {}, ncu.get(key, {}).get("warp_execution_efficiency_pct")
            if key in ncu and b and c.get(den) and num in c:
                n += 1
                ok += abs(100 * c[num] / (32 * c[den]) - b) / b <= 0.10
        print(f"lanes active counted over {name}: {ok} of {n} kernels within 10%")
    # shared requests themselves (a vectorised LDS.128 is one, four scalar loads four): the
    # emulator's, scaled up where a launch was cut at the record cap, against ncu's shared load
    # and store instructions
    from kernels.profile.model import coverage

    ok = n = 0
    for key in emu:
        c, raw = emu[key].get("counts") or {}, ncu.get(key, {}).get("raw") or {}
        want = raw.get("smsp__sass_inst_executed_op_shared_ld.sum", 0) + \
            raw.get("smsp__sass_inst_executed_op_shared_st.sum", 0)
        if want and c.get("shd_req"):
            n += 1
            ok += abs(c["shd_req"] / coverage(c) - want) / want <= 0.10
    print(f"shared requests (ncu: shared load + store instructions): {ok} of {n} kernels within 10%")
    if not times_path:
        return
    estimates = {r["file"]: r["estimate"] for r in _load(emu_path) if r.get("estimate")}
    measured = {r["file"]: r for r in _load(times_path) if "ms" in r}
    pairs = [(f, estimates[f], measured[f]) for f in estimates if f in measured]
    if not pairs:
        print("no (estimate, measured) pairs")
        return
    est = [p[1]["time_ms"] for p in pairs]
    got = [p[2]["ms"] for p in pairs]
    errors = sorted(((e - g) / g, f, e, g, p["bound"]) for (f, p, _), e, g in zip(pairs, est, got))
    print(f"\nestimate vs measured over {len(pairs)} files: Spearman {spearman(est, got):.3f}, "
          f"median |error| {100 * statistics.median(abs(x[0]) for x in errors):.1f}%")
    print("\n| file | case | estimate ms | measured ms | error | bound |\n|---|---|---|---|---|---|")
    for rel, f, e, g, bound in sorted(errors, key=lambda x: -abs(x[0])):
        print(f"| {f} | {measured[f]['case']} | {e:.4g} | {g:.4g} | {100 * rel:+.0f}% | {bound} |")


LANE_VARIANTS = {  # (thread executions, warp executions) in the emulator's counts
    "memory instructions": ("active_lanes", "warp_inst"),
    "basic blocks, unweighted": ("bb_lanes", "bb_inst"),
    "basic blocks, unweighted, short branches predicated": ("bb_pred_lanes", "bb_inst"),
    "basic blocks by code bytes": ("code_lanes", "code_inst"),
    "basic blocks by code bytes, short branches predicated": ("code_pred_lanes", "code_inst"),
    "basic blocks by code bytes less the instrumentation's": ("work_lanes", "work_inst"),
    "basic blocks by code bytes less the instrumentation's, short branches predicated (the metric)":
        ("work_pred_lanes", "work_inst"),
}

FIT_GRID = {  # the model's three fitted constants (kernels/profile/model.py) and the values tried
    "L2_REPEAT_FRACTION": (0.0, 0.1, 0.25, 0.5, 1.0),
    "INSTRUCTIONS_PER_MEMORY_INSTRUCTION": (2.0, 4.0, 6.0, 10.0, 16.0),
    "WARPS_TO_SATURATE": (4, 8, 16, 32),
}


def resources_path(emu_path: str) -> Path:
    """Where NVRTC's facts about the stored files are kept beside their counts."""
    return Path(emu_path).with_name("resources.json")


def _compiled_facts(file: str, source: str, exercise, kept: dict, fresh: dict) -> tuple[dict, dict]:
    """(constants, ptxas resources per kernel) of `source`: from `kept` (resources.json) when it
    holds this very source compiled by this NVRTC, else from NVRTC now (two compiles, ~0.1 s
    each), recorded in `fresh`."""
    import hashlib

    from kernels import nvrtc
    from kernels.compile import compile_submission
    from kernels.profile.run import resources

    digest = hashlib.sha256(source.encode()).hexdigest()
    toolchain = "nvrtc %d.%d" % nvrtc.load().version
    hit = kept.get(file)
    if hit and hit.get("sha256") == digest and hit.get("toolchain") == toolchain:
        return hit["constants"], hit["resources"]
    constants = compile_submission(source, exercise, None).constants
    res = resources(source, exercise, constants)
    fresh[file] = {"sha256": digest, "toolchain": toolchain, "constants": constants, "resources": res}
    return constants, res


def _reestimator(emu_path: str, times_path: str, store_resources: bool = False):
    """A function (constants → [(file, lesson, estimate ms, measured ms)]) that re-runs the model
    on the emulator's stored counts; occupancy from NVRTC's resources, computed once per file
    (or read from resources.json beside the counts, where it holds the same source and NVRTC;
    `store_resources` rewrites that file)."""
    from kernels.profile import doc as prof
    from kernels.profile import model
    from kernels.exercises import find_exercise
    from kernels.plan import env_for, resolve_launches

    rows: dict[str, list] = {}
    for r in _load(emu_path):
        if "kernel" in r:
            rows.setdefault(r["file"], []).append(r)
    measured = {r["file"]: r["ms"] for r in _load(times_path) if "ms" in r}
    kept_path = resources_path(emu_path)
    kept = json.loads(kept_path.read_text()) if kept_path.is_file() else {}
    fresh: dict = {}
    jobs = []
    for file, launches in rows.items():
        if file not in measured:
            continue
        exercise_id, rel = file.split("/", 1)
        exercise = find_exercise(exercise_id)
        source = (exercise.folder / rel).read_text()
        constants, res = _compiled_facts(file, source, exercise, kept, fresh)
        case = next(c for c in (*exercise.tests, *exercise.benchmark.cases) if c.label == launches[0]["case"])
        plan = resolve_launches(exercise.launches, env_for(case, constants))
        occ = [prof.kernel_entry(l.kernel, l.grid, l.block, l.shared_bytes, res.get(l.kernel), {})["occupancy"]
               for l in plan]
        jobs.append((file, exercise, source, case, [r["counts"] for r in launches], occ, constants))
    if store_resources:
        kept_path.write_text(json.dumps({**{f: kept[f] for f in kept if f not in fresh}, **fresh},
                                        indent=1, sort_keys=True) + "\n")

    def run(values: dict) -> list[tuple[str, str, float, float]]:
        saved = {k: getattr(model, k) for k in values}
        for k, v in values.items():
            setattr(model, k, v)
        try:
            out = []
            for file, exercise, source, case, counts, occ, constants in jobs:
                est = model.estimate(exercise, source, case, counts, occ, constants)
                if est:
                    out.append((file, exercise.lesson_dir.name, est["time_ms"], measured[file]))
            return out
        finally:
            for k, v in saved.items():
                setattr(model, k, v)
    return run


def _score(rows) -> tuple[float, float]:
    errors = [abs(e - g) / g for _, _, e, g in rows]
    return spearman([r[2] for r in rows], [r[3] for r in rows]), 100 * statistics.median(errors)


def fit(emu_path: str, times_path: str) -> None:
    """The model's fitted constants: in-sample, and leave-one-lesson-out (each lesson scored with
    constants fitted on the other lessons only: the figure the model states as its accuracy)."""
    import itertools

    from kernels.profile import model

    run = _reestimator(emu_path, times_path)
    current = {k: getattr(model, k) for k in FIT_GRID}
    sp, med = _score(run({}))
    print(f"as shipped {current}: Spearman {sp:.3f}, median |error| {med:.1f}% over {len(run({}))} files")
    combos = [dict(zip(FIT_GRID, values)) for values in itertools.product(*FIT_GRID.values())]
    results = [(c, run(c)) for c in combos]

    def median_on(rows, lessons) -> float:
        return statistics.median(abs(e - g) / g for _, lesson, e, g in rows if lesson in lessons)

    lessons = sorted({r[1] for r in results[0][1]})
    best, rows = min(results, key=lambda cr: median_on(cr[1], set(lessons)))
    sp, med = _score(rows)
    print(f"in-sample best {best}: Spearman {sp:.3f}, median |error| {med:.1f}%")
    held = []
    for lesson in lessons:
        train = set(lessons) - {lesson}
        chosen, chosen_rows = min(results, key=lambda cr: median_on(cr[1], train))
        held += [r for r in chosen_rows if r[1] == lesson]
        print(f"  {lesson}: fitted on the others {chosen}")
    sp, med = _score(held)
    print(f"leave-one-lesson-out: Spearman {sp:.3f}, median |error| {med:.1f}% over {len(held)} files")
    print("\n| file | estimate ms (held out) | measured ms | error |\n|---|---|---|---|")
    for file, _, e, g in sorted(held, key=lambda r: -abs(r[2] - r[3]) / r[3])[:15]:
        print(f"| {file} | {e:.4g} | {g:.4g} | {100 * (e - g) / g:+.0f}% |")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=("emu", "cuda"))
    parser.add_argument("--all", action="store_true", help="every reference, accepted starter and correct solution")
    parser.add_argument("--files", help="(cuda) the emulator's jsonl: its files are the ones measured")
    parser.add_argument("--out", help="(cuda) folder for ncu.jsonl, times.jsonl and logs")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--deadline", type=float, default=200.0, help="(cuda) seconds for the whole GPU side")
    parser.add_argument("--compare", nargs=2, metavar=("EMU", "NCU"))
    parser.add_argument("--times", help="(compare) the GPU's times.jsonl")
    parser.add_argument("--skip-ncu", action="store_true", help="(cuda) timings only")
    parser.add_argument("--fit", nargs=2, metavar=("EMU", "TIMES"),
                        help="re-run the model on stored counts: fitted constants, in-sample and leave-one-lesson-out")
    parser.add_argument("--shard", help="K/N: only every N-th file from the K-th (0-based): N processes share --all")
    parser.add_argument("--ncu-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.ncu_child:
        return ncu_child(args.ncu_child)
    if args.compare:
        compare(*args.compare, args.times)
        return 0
    if args.fit:
        fit(*args.fit)
        return 0
    if not args.backend:
        parser.error("--backend or --compare")
    if args.files:
        seen = {}
        for r in _load(args.files):
            if "kernel" in r:
                ex, rel = r["file"].split("/", 1)
                seen[r["file"]] = (ex, rel, None)
        files = list(seen.values())
    else:
        files = all_files(None if args.backend == "emu" else set()) if args.all else FILES
    if args.shard:
        k, _, n = args.shard.partition("/")
        if not (k.isdigit() and n.isdigit() and int(k) < int(n)):
            parser.error("--shard takes K/N with 0 <= K < N")
        files = files[int(k)::int(n)]
    if args.backend == "emu":
        measure_emu(files)
    else:
        out = Path(args.out or ".")
        out.mkdir(parents=True, exist_ok=True)
        measure_gpu(files, out, args.reps, args.deadline, args.skip_ncu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
