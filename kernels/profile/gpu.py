"""The GPU path of the profiler (#16): Nsight Compute (`ncu`) on one test case.

ncu profiles a whole process, so the judge's job process does not profile
itself: it starts `python -m kernels.profile.gpu child …` under `ncu --csv`
with a fixed metric set, restricted to the learner's kernels, and parses the
CSV. The child compiles the source for this GPU as the judge does, in the
source's language (`kernels.languages`: NVRTC for CUDA C; for Triton the
sandboxed compile to cubins, so no learner Python runs in the child), and runs
one test case through the judge's own `run_case` (so it also checks the
outputs once more). The whole thing has a wall-clock budget (PROFILE_BUDGET_S)
from the moment the child is compiled and released; past it there is no profile.

ncu's own start (~2.5 s on an H100) and the child's imports and compile need
no GPU, so the judge starts the child (`start_profile`) when the verdict is
known, before the benchmark: the child compiles, says so with a file in its
folder and waits for another, and only after the benchmark is it released to
create its CUDA context and run (`PendingProfile.finish`). What the learner
waits for after the benchmark is then the profiling itself.

What ncu measures replaces the emulator's counts; resources still come from
ptxas (kernels.profile.run.resources: NVRTC's for CUDA C, the report of the
ptxas Triton ran for a Triton binary). Atomics per address are not measured
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
import time
from pathlib import Path
from typing import Any

from kernels import languages, settings
from kernels.profile import doc as prof
from kernels.profile.findings import findings

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
    # ldmatrix (WMMA's and mma.sync's fragment loads): its wavefronts are in op_ld's, its instructions
    # are not in op_shared_ld's (an H100: 32 LDSM.x4 of a padded tile, 128 wavefronts, op_shared_ld 1)
    "smsp__sass_inst_executed_op_ldsm.sum",
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
    for candidate in (settings.value("KDOJO_NCU"), shutil.which("ncu"), "/usr/local/cuda/bin/ncu",
                      "/opt/nvidia/nsight-compute/ncu"):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def metrics() -> tuple[str, ...]:
    """NCU_METRICS less those named in $KDOJO_NCU_SKIP (comma-separated): an ncu that does
    not know one metric refuses the whole run, so an operator can leave it out."""
    skip = set(settings.value("KDOJO_NCU_SKIP"))
    return tuple(m for m in NCU_METRICS if m not in skip)


def ncu_command(ncu: str, kernels: list[str], child: list[str]) -> list[str]:
    """ncu on the child alone (not the processes it starts: NVRTC's helper, the Triton
    compile's sandbox), its launches of `kernels` (entry point names) only."""
    names = "|".join(kernels)
    return [ncu, "--csv", "--print-units", "base", "--clock-control", "none", "--metrics", ",".join(metrics()),
            "--target-processes", "application-only", "-k", f"regex:^({names})$", "--launch-count", "16", *child]


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
            (get("smsp__sass_inst_executed_op_shared_st.sum") or 0) + \
            (get("smsp__sass_inst_executed_op_ldsm.sum") or 0)
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


# The child says it has compiled by creating _READY_FILE in their folder, and the parent
# releases it by creating _RELEASE_FILE (not through stdin or stdout: ncu stands between the
# two processes). The budget counts from the release of a ready child: a Triton compile
# (seconds: its sandbox, Triton's start, ptxas) is not the profile's time. The parent waits
# at most _READY_LIMIT_S for it (the deferred profile job's whole allowance, kernels/judge.py).
# A child never released gives up after _WAIT_LIMIT_S, or as soon as the job process that
# started it is gone, so no orphan lingers.
_READY_FILE = "ready"
_RELEASE_FILE = "release"
_READY_LIMIT_S = 60.0
_WAIT_LIMIT_S = 120.0


class PendingProfile:
    """An ncu child started ahead of time, waiting to be released (or cancelled). `names`:
    each entry point ncu profiles → the kernel's name in the profile (the learner's);
    `per_thread_code`: the learner wrote the code each thread runs (CUDA C), so the
    findings about branches and shared-memory layout speak of their code (findings.py)."""

    def __init__(self, exercise: Any, case_index: int, proc: subprocess.Popen,
                 tmp: tempfile.TemporaryDirectory, names: dict[str, str] | None = None,
                 per_thread_code: bool = True) -> None:
        self.exercise, self.case_index, self.proc, self._tmp = exercise, case_index, proc, tmp
        self.names = names or {}
        self.per_thread_code = per_thread_code

    def finish(self, resources: dict[str, dict[str, int]], budget_s: float = PROFILE_BUDGET_S,
               measured: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Wait for the child to be compiled (at most _READY_LIMIT_S), release it and wait
        at most `budget_s` for ncu: the profile, or None. `resources` are keyed by entry point."""
        try:
            if not self._ready():
                return None
            Path(self._tmp.name, _RELEASE_FILE).touch()
            try:
                out, _ = self.proc.communicate(timeout=budget_s)
            except subprocess.TimeoutExpired:
                return None
            launches = parse_csv(out.decode("utf-8", errors="replace"))
            if self.proc.returncode != 0 or not launches:
                return None
            return _profile_doc(self.exercise, self.case_index, launches, resources, measured, self.names,
                                self.per_thread_code)
        finally:
            self.cancel()

    def _ready(self) -> bool:
        """True once the child has compiled; False if it ended first or took too long."""
        flag, deadline = Path(self._tmp.name, _READY_FILE), time.monotonic() + _READY_LIMIT_S
        while not flag.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    def cancel(self) -> None:
        """Stop the child (and ncu) if still running, and remove its files. Idempotent."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
        if self.proc.stdout is not None and not self.proc.stdout.closed:
            self.proc.stdout.close()
        self._tmp.cleanup()


def start_profile(exercise: Any, source: str, case_index: int, seed: int, lessons_dir: Path,
                  arch: str | None = None, language: str = "cuda", kernels: dict[str, str] | None = None,
                  per_thread_code: bool = True) -> PendingProfile | None:
    """Start ncu and the child, which compiles `source`, written in `language`, for `arch`
    (no GPU needed) and then waits for its release (PendingProfile.finish) before touching
    the GPU. `kernels`: the entry points to profile → their names in the profile (default:
    the exercise's CUDA kernels, by their own names). None where there is no ncu."""
    ncu = ncu_path()
    if ncu is None:
        return None
    names = kernels or {k.name: k.name for k in exercise.kernels}
    tmp = tempfile.TemporaryDirectory(prefix="kdojo-ncu-")
    src = Path(tmp.name, "submission" + languages.get(language).suffix)
    src.write_text(source)
    child = [sys.executable, "-m", "kernels.profile.gpu", "child", json.dumps(
        {"lessons": str(lessons_dir), "exercise": exercise.id, "source": str(src), "language": language,
         "case": case_index, "seed": seed, "arch": arch, "wait": True, "parent": os.getpid()})]
    proc = subprocess.Popen(ncu_command(ncu, sorted(names), child), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
                            cwd=Path(__file__).resolve().parents[2])  # the folder `-m kernels…` is found from
    return PendingProfile(exercise, case_index, proc, tmp, names, per_thread_code)


def profile_on_gpu(exercise: Any, source: str, case_index: int, seed: int, lessons_dir: Path,
                   resources: dict[str, dict[str, int]], budget_s: float = PROFILE_BUDGET_S,
                   measured: dict[str, Any] | None = None, arch: str | None = None, language: str = "cuda",
                   kernels: dict[str, str] | None = None, per_thread_code: bool = True) -> dict[str, Any] | None:
    """The `profile` object measured by ncu, or None (no ncu, past the budget, no counters).
    `measured`, if given, gets "dram_bytes": ncu's DRAM bytes read + written by all the
    profiled launches (for the roofline, kernels.profile.run.gpu_roofline). The rest is
    start_profile's. Started and released as soon as the child has compiled; the judge
    starts it earlier (start_profile)."""
    pending = start_profile(exercise, source, case_index, seed, lessons_dir, arch, language, kernels, per_thread_code)
    return None if pending is None else pending.finish(resources, budget_s, measured)


def _profile_doc(exercise: Any, case_index: int, launches: list[dict[str, Any]],
                 resources: dict[str, dict[str, int]], measured: dict[str, Any] | None,
                 names: dict[str, str] | None = None, per_thread_code: bool = True) -> dict[str, Any]:
    kernels = []
    dram = [(l["metrics"].get("dram__bytes_read.sum"), l["metrics"].get("dram__bytes_write.sum")) for l in launches]
    for launch in launches:
        m = launch["metrics"]
        res = resources.get(launch["kernel"])  # by entry point, as ptxas names it
        name = (names or {}).get(launch["kernel"], launch["kernel"])
        entry = prof.kernel_entry(name, tuple(_dims(launch["grid"])), tuple(_dims(launch["block"])),
                                  int(m.get("launch__shared_mem_per_block_dynamic") or 0), res, metrics_from_ncu(m))
        kernels.append(entry)

    if measured is not None and all(r is not None and w is not None for r, w in dram):
        measured["dram_bytes"] = sum(r + w for r, w in dram)
    return prof.build("ncu", exercise.tests[case_index].label, kernels,
                      findings(kernels, per_thread_code=per_thread_code))


def _child(job: dict[str, Any]) -> int:
    """Compile for this GPU as the judge does and run one test case (under ncu)."""
    import numpy as np

    from kernels.exercises import find_exercise
    from kernels.targets.cuda import CudaTarget
    from kernels.cases import run_case

    exercise = find_exercise(job["exercise"], job["lessons"])
    language = languages.get(job.get("language", "cuda"))
    source = Path(job["source"]).read_text()
    folder = Path(job["source"]).parent
    if job.get("arch"):  # compile before the release: neither NVRTC nor Triton's compile needs a GPU
        language.compile(source, exercise, CudaTarget.name, job["arch"])
    if job.get("wait"):
        (folder / _READY_FILE).touch()
        if not _released(folder / _RELEASE_FILE, job.get("parent")):
            return 4  # never released: the parent gave up on the profile
    backend = CudaTarget()
    compiled = language.compile(source, exercise, backend.name, backend.arch)  # memoised when the arch was given
    if not compiled.ok:
        return 2
    program = backend.build(exercise, source, compiled)
    case = exercise.tests[job["case"]]
    test, fault, _ = run_case(exercise, backend, program, compiled, case,
                              np.random.default_rng([job["seed"], job["case"]]))
    return 0 if fault is None and test.status == "pass" else 3


def _released(flag: Path, parent: int | None) -> bool:
    """Wait for the release file; False past _WAIT_LIMIT_S or once the judge's job process
    that started us is gone (killed mid-benchmark: nobody will release us)."""
    deadline = time.monotonic() + _WAIT_LIMIT_S
    while not flag.exists():
        if time.monotonic() > deadline or (parent and not _alive(parent)):
            return False
        time.sleep(0.005)
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "child":
        sys.exit(_child(json.loads(sys.argv[2])))
    print("usage: python -m kernels.profile.gpu child JOB_JSON", file=sys.stderr)
    sys.exit(2)
