"""The GPU path of the profiler (#16): Nsight Compute (`ncu`) on one test case.

ncu profiles a whole process, so the judge's job process does not profile
itself: it starts `python -m kernels.profile_gpu child …` under `ncu --csv`
with a fixed metric set, restricted to the exercise's kernels, and parses the
CSV. The child compiles the source for this GPU and runs one test case through
the judge's own `run_case` (so it also checks the outputs once more). The whole
thing has a wall-clock budget (PROFILE_BUDGET_S); past it there is no profile.

What ncu measures replaces the emulator's counts; resources still come from
ptxas (kernels.profile_run.resources). Atomics per address are not measured
by ncu: null.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from kernels import profile as prof

PROFILE_BUDGET_S = 8.0  # measured on an H100: 5.3 s cold, 3.4-3.8 s warm (docs/benchmarks.md, "Profiling (#16)")
NCU_METRICS = (
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
    # shared wavefronts of loads and stores alone, per SASS shared load/store: the total above also counts
    # other traffic of the shared data pipe (7 per instruction in block_sum's shuffle reduction, none of it
    # loads or stores) and shared atomics, which the emulator counts apart (docs/benchmarks.md, #16)
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "launch__registers_per_thread", "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic",
    "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    # DRAM bytes moved: the roofline's bytes where the exercise has no byte model (#16)
    "dram__bytes_read.sum", "dram__bytes_write.sum",
)


def ncu_path() -> str | None:
    """$KDOJO_NCU, then `ncu` on PATH, then CUDA's usual folders; None where there is none."""
    for candidate in (os.environ.get("KDOJO_NCU"), shutil.which("ncu"), "/usr/local/cuda/bin/ncu",
                      "/opt/nvidia/nsight-compute/ncu"):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def metrics() -> tuple[str, ...]:
    """NCU_METRICS less those named in $KDOJO_NCU_SKIP (comma-separated): an ncu that does
    not know one metric refuses the whole run, so an operator can leave it out."""
    skip = {m.strip() for m in os.environ.get("KDOJO_NCU_SKIP", "").split(",") if m.strip()}
    return tuple(m for m in NCU_METRICS if m not in skip)


def ncu_command(ncu: str, kernels: list[str], child: list[str]) -> list[str]:
    names = "|".join(kernels)
    return [ncu, "--csv", "--print-units", "base", "--clock-control", "none", "--metrics", ",".join(metrics()),
            "-k", f"regex:^({names})$", "--launch-count", "16", *child]


def parse_csv(text: str) -> list[dict[str, Any]]:
    """ncu's details CSV → one {kernel, id, metrics{name: float}} per profiled launch, in order."""
    rows = [line for line in text.splitlines() if line.startswith('"')]
    launches: dict[str, dict[str, Any]] = {}
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        name, launch = row.get("Kernel Name"), row.get("ID")
        metric, value = row.get("Metric Name"), (row.get("Metric Value") or "").replace(",", "")
        if not name or launch is None or not metric:
            continue
        entry = launches.setdefault(launch, {"kernel": name.split("(")[0].strip(), "id": launch, "metrics": {},
                                             "block": row.get("Block Size", ""), "grid": row.get("Grid Size", "")})
        try:
            entry["metrics"][metric] = float(value)
        except ValueError:
            pass  # "n/a": the GPU does not have this counter
    return list(launches.values())


def _div(a: float | None, b: float | None, digits: int = 2) -> float | None:
    return round(a / b, digits) if a is not None and b else None


def metrics_from_ncu(m: dict[str, float]) -> dict[str, Any]:
    metrics: dict[str, Any] = {k: None for k in prof.METRIC_KEYS}
    get = m.get
    if get("smsp__sass_inst_executed_op_shared_ld.sum") is not None:
        shared_waves = (get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") or 0) + \
            (get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum") or 0)
        shared_req = (get("smsp__sass_inst_executed_op_shared_ld.sum") or 0) + \
            (get("smsp__sass_inst_executed_op_shared_st.sum") or 0)
    else:  # an ncu without the split (or $KDOJO_NCU_SKIP): the total, which overcounts
        shared_waves = get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
        shared_req = (get("smsp__inst_executed_op_shared_ld.sum") or 0) + \
            (get("smsp__inst_executed_op_shared_st.sum") or 0)
    lanes = get("smsp__thread_inst_executed_per_inst_executed.ratio")
    metrics.update({
        "global_load_sectors_per_request": _div(get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
                                                get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")),
        "global_store_sectors_per_request": _div(get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
                                                 get("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")),
        "shared_wavefronts_per_request": _div(shared_waves, shared_req),
        "warp_execution_efficiency_pct": None if lanes is None else round(100 * lanes / 32, 1),
        "dram_throughput_pct": get("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
        "tensor_pipe_pct": get("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"),
        "achieved_occupancy_pct": get("sm__warps_active.avg.pct_of_peak_sustained_active"),
    })
    return metrics


def _dims(text: str) -> list[int]:
    parts = [int(p) for p in text.strip("() ").replace(" ", "").split(",") if p.isdigit()]
    return parts + [1] * (3 - len(parts)) if len(parts) <= 3 else [0, 0, 0]


def profile_on_gpu(exercise: Any, source: str, case_index: int, seed: int, lessons_dir: Path,
                   resources: dict[str, dict[str, int]], budget_s: float = PROFILE_BUDGET_S,
                   measured: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The `profile` object measured by ncu, or None (no ncu, past the budget, no counters).
    `measured`, if given, gets "dram_bytes": ncu's DRAM bytes read + written by all the
    profiled launches (for the roofline, kernels.profile_run.gpu_roofline)."""
    ncu = ncu_path()
    if ncu is None:
        return None
    with tempfile.TemporaryDirectory(prefix="kdojo-ncu-") as tmp:
        src = Path(tmp, "submission.cu")
        src.write_text(source)
        child = [sys.executable, "-m", "kernels.profile_gpu", "child", json.dumps(
            {"lessons": str(lessons_dir), "exercise": exercise.id, "source": str(src), "case": case_index,
             "seed": seed})]
        try:
            done = subprocess.run(ncu_command(ncu, [k.name for k in exercise.kernels], child), capture_output=True,
                                  text=True, timeout=budget_s, cwd=Path(__file__).resolve().parent.parent)
        except subprocess.TimeoutExpired:
            return None
    launches = parse_csv(done.stdout)
    if done.returncode != 0 or not launches:
        return None
    kernels = []
    dram = [(l["metrics"].get("dram__bytes_read.sum"), l["metrics"].get("dram__bytes_write.sum")) for l in launches]
    for launch in launches:
        m = launch["metrics"]
        res = resources.get(launch["kernel"])
        entry = prof.kernel_entry(launch["kernel"], tuple(_dims(launch["grid"])), tuple(_dims(launch["block"])),
                                  int(m.get("launch__shared_mem_per_block_dynamic") or 0), res, metrics_from_ncu(m))
        kernels.append(entry)
    from kernels.profile_findings import findings

    if measured is not None and all(r is not None and w is not None for r, w in dram):
        measured["dram_bytes"] = sum(r + w for r, w in dram)
    return prof.build("ncu", exercise.tests[case_index].label, kernels, findings(kernels))


def _child(job: dict[str, Any]) -> int:
    """Compile for this GPU and run one test case (under ncu)."""
    import numpy as np

    from kernels.catalog import find_exercise
    from kernels.compile import compile_submission
    from kernels.cuda_backend import CudaBackend
    from kernels.pipeline import run_case

    exercise = find_exercise(job["exercise"], job["lessons"])
    source = Path(job["source"]).read_text()
    backend = CudaBackend()
    compiled = compile_submission(source, exercise, backend.arch)
    if not compiled.ok:
        return 2
    program = backend.build(exercise, source, compiled.constants)
    case = exercise.tests[job["case"]]
    test, fault, _ = run_case(exercise, backend, program, compiled.constants, case,
                              np.random.default_rng([job["seed"], job["case"]]))
    return 0 if fault is None and test.status == "pass" else 3


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "child":
        sys.exit(_child(json.loads(sys.argv[2])))
    print("usage: python -m kernels.profile_gpu child JOB_JSON", file=sys.stderr)
    sys.exit(2)
