"""Profiling a passing attempt (#16): which case, the counts, the resources,
the findings — the `profile` object of the result document.

On the emulator (#26): the largest benchmark case whose buffers fit
PROFILE_MAX_BUFFER_BYTES runs on the check program with counting on, each
launch its real grid but only a sample of its blocks (profile_emu.SAMPLE_BLOCKS:
first, last, evenly spaced), the counts scaled to the whole grid; access
patterns, divergence, bank conflicts and atomics are those of the benchmark's
sizes and strides. An exercise whose later launches read what earlier ones
wrote (a sample of a histogram's blocks leaves a scatter's offsets unfinished),
or whose blocks each do more than MAX_BLOCK_WORK of its work model (a GEMM
block walks all of K), or with no benchmark case that fits, is counted on a
test case instead (pick_case; caveat "counted_test_case"). NVRTC compiles the
source for the reference GPU (sm_90) with `ptxas -v` for registers, shared
memory, stack and spills. Nothing here
can change a verdict: any failure gives no profile (and a log line), never an
error. On a GPU with `ncu`, kernels/profile/gpu.py measures the largest test
case instead (within its own time budget), for CUDA C and for Triton
(`kernels.languages.profiled` says which language each target profiles): the
callers hand over the attempt's compile result (`compiled`), whose language
the ncu child compiles again and whose Triton build names the cubins' entry
points and carries the report of the ptxas Triton ran (the resources).

Staff switches: KDOJO_PROFILE=0 turns profiling off everywhere; a spec's
`[profile] enabled = false` turns it off for one exercise.
"""

from __future__ import annotations

import concurrent.futures
import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels import languages, settings, targets
from kernels.buffers import make_guarded
from kernels.plan import buffer_shapes, case_dict, env_for, load_reference, resolve_launches
from kernels.profile import doc as prof, emu as profile_emu, gpu as profile_gpu, model as profile_model
from kernels.profile.findings import findings
from kernels.spec import Exercise

log = logging.getLogger(__name__)
PTXAS_OPTIONS = ["-lineinfo", "-std=c++17", "-default-device", "-Xptxas", "-v"]  # as kernels/compile.py
# The emulator's reference GPU is an H100 compiled for sm_90; on a GPU the resources come from
# the arch the judge runs there (sm_90a on an H100: kernels/targets/cuda.py device_arch), so a
# kernel guarded by __CUDA_ARCH_FEAT_SM90_ALL (wgmma, setmaxnreg) is reported with the registers
# of the code that really runs, not of its fallback.
REFERENCE_ARCH = "sm_90"


def switched_on() -> bool:
    """The staff's global switch: KDOJO_PROFILE=0 (or false/off/no) turns profiling off."""
    return settings.value("KDOJO_PROFILE")


def measured_by(target_name: str | None) -> str | None:
    """Who measures a profile on the target `target_name`: "ncu" on a GPU that has it,
    "emulator" on the CPU, None where no profile is made."""
    if target_name not in targets.CONCRETE:
        return None
    if not targets.timed(target_name):
        return "emulator"
    return "ncu" if profile_gpu.ncu_path() is not None else None


def enabled(exercise: Exercise, backend_name: str) -> bool:
    if not switched_on() or not exercise.profile_enabled:
        return False
    return measured_by(backend_name) is not None


def _gpu_case(exercise: Exercise, constants: dict[str, int], compiled: Any = None) -> int:
    """On a GPU: the largest test case (ncu's replays keep it to a few launches), by the
    launches of the attempt's language where its compile result is given."""
    return max(range(len(exercise.tests)), key=lambda i: _threads(exercise, constants, i, compiled))


def _gpu_arch(backend: Any) -> str:
    """The arch the judge builds for on this GPU (resources and the child's compile alike)."""
    return backend.arch or REFERENCE_ARCH


def _triton_build(compiled: Any) -> Any:
    """The attempt's Triton build (kernels.triton.compile.TritonBuild), or None (CUDA C)."""
    return compiled.artifact if compiled is not None and compiled.language == "triton" else None


def _child_options(compiled: Any) -> dict[str, Any]:
    """start_profile's keywords for the attempt's compile result: CUDA C's are the defaults
    (the exercise's kernels); a Triton build's cubins are profiled by their entry points,
    named in the profile after their @triton.jit functions, and its threads are laid out by
    Triton's compiler, not written by the learner (findings.PER_THREAD_CODE)."""
    build = _triton_build(compiled)
    if build is None:
        return {}
    return {"language": compiled.language, "kernels": build.entry_kernels(), "per_thread_code": False}


def start_gpu_profile(exercise: Exercise, source: str, backend: Any, constants: dict[str, int],
                      seed: int, compiled: Any = None) -> Any:
    """Start the ncu child before the benchmark (kernels.profile.gpu.start_profile), or None.
    `compiled`: the attempt's CompileResult (its language; None: CUDA C). The caller hands
    the child to profile_attempt, or cancels it."""
    return profile_gpu.start_profile(exercise, source, _gpu_case(exercise, constants, compiled), seed,
                                     exercise.lesson_dir.parent, _gpu_arch(backend), **_child_options(compiled))


def profile_attempt(exercise: Exercise, source: str, backend: Any, program: Any,
                    constants: dict[str, int], seed: int,
                    benchmark: dict[str, Any] | None = None, pending: Any = None,
                    compiled: Any = None) -> dict[str, Any] | None:
    """The profile for an accepted attempt on either backend, or None. `benchmark` (the
    judge run's benchmark section, GPU only) gives the roofline's measured points;
    `pending`, an ncu child started earlier (start_gpu_profile), is released and used;
    `compiled`, the attempt's CompileResult, says its language (None: CUDA C)."""
    if not backend.timed:  # the CPU: the emulator's counts and the model's estimate
        return profile_emulated(exercise, source, backend, program, constants, seed)
    index = pending.case_index if pending is not None else _gpu_case(exercise, constants, compiled)
    measured: dict[str, Any] = {}
    build = _triton_build(compiled)
    res = resources(source, exercise, constants, _gpu_arch(backend)) if build is None \
        else triton_resources(build, env_for(exercise.tests[index], constants))
    if pending is not None:
        doc = pending.finish(res, measured=measured)
    else:
        doc = profile_gpu.profile_on_gpu(exercise, source, index, seed, exercise.lesson_dir.parent, res,
                                         measured=measured, arch=_gpu_arch(backend), **_child_options(compiled))
    if doc is not None:
        try:
            roof = gpu_roofline(exercise, constants, exercise.tests[index], measured.get("dram_bytes"), benchmark)
        except Exception:  # noqa: BLE001 — the measured metrics stand without a roofline
            log.exception("profile: no roofline for %s", exercise.id)
            roof = None
        if roof:
            doc["roofline"] = roof
    return doc


def gpu_roofline(exercise: Exercise, constants: dict[str, int], profiled_case: Any, ncu_dram_bytes: float | None,
                 benchmark: dict[str, Any] | None) -> dict[str, Any] | None:
    """The roofline measured on the GPU: the benchmark's time at the largest benchmark case
    (and the framework's, same run); bytes from the byte model, else ncu's DRAM bytes at the
    profiled case scaled by the buffers' footprint to the benchmark case."""
    if exercise.benchmark is None or not benchmark or not benchmark.get("sizes"):
        return None
    case = profile_model.largest_case(exercise, constants)
    index = exercise.benchmark.cases.index(case)
    if index >= len(benchmark["sizes"]):
        return None
    size = benchmark["sizes"][index]
    traffic = None
    if ncu_dram_bytes:
        traffic = ncu_dram_bytes * profile_model.footprint_scale(
            exercise, env_for(profiled_case, constants), env_for(case, constants))
    framework = (size.get("baselines") or {}).get("framework")
    return profile_model.roofline(exercise, constants, size.get("ms"), "measured", framework,
                                  traffic_bytes=traffic, traffic_from="ncu")


def _threads(exercise: Exercise, constants: dict[str, int], index: int, compiled: Any = None) -> int:
    env = env_for(exercise.tests[index], constants)
    launches = resolve_launches(exercise.launches, env) if compiled is None \
        else languages.get(compiled.language).launches(exercise, compiled, env)
    return sum(int(np.prod(l.grid)) * int(np.prod(l.block)) for l in launches)


FALLBACK_MAX_WORK_BYTES = 8 << 20  # 2^21 four-byte accesses: kdojo_profile.cpp's kMaxRecords
# The sampled benchmark case's buffers, all of them together, at most: the profiler's program gets
# two thirds of KDOJO_EMU_MEMORY_MB (1365 MiB by default) and holds them mapped beside its records
# (64 MiB; its answer has no buffers); the job process holds three copies (inputs, the guarded
# buffers, the request) and sends them down a pipe, all within the submission's time budget.
# 2^28 bytes (histogram.bytes) and 2^24 gather elements (192 MiB) fit; 8192 x 8192 floats do not.
PROFILE_MAX_BUFFER_BYTES = 320 << 20


def max_buffer_bytes() -> int:
    """PROFILE_MAX_BUFFER_BYTES, less where KDOJO_EMU_MEMORY_MB leaves the program under 4 times it."""
    from kernels.emu.jail import program_memory_bytes

    return min(PROFILE_MAX_BUFFER_BYTES, program_memory_bytes("fast") // 4)


# A block doing more than this much of the exercise's work model (flops, else bytes / 4) leaves too
# few blocks in the sample (half the 2^21 records hold 16 blocks of 2^16 accesses) and too much time
# for the check program (histogram.bytes at 2^28: 2^17 a block, one byte a load; a 4096-cubed
# GEMM's block: 2^27 flops): a smaller benchmark case, else a test case.
MAX_BLOCK_WORK = 1 << 16


@dataclass(frozen=True)
class Picked:
    """The case the emulator counts: a benchmark case sampled (sample_blocks > 1) or a test case."""

    case: Any
    launches: list[Any]
    sample_blocks: int
    benchmark: bool


def dependent_launches(exercise: Exercise) -> bool:
    """A later launch takes a buffer an earlier launch may write (a non-const pointer): its blocks
    read what a sample of the earlier launch's blocks would leave unfinished."""
    writable: set[str] = set()
    for spec in exercise.launches:
        taken = {a.buffer for a in spec.args if a.buffer is not None}
        if taken & writable:
            return True
        writable |= {a.buffer for a in spec.args if a.buffer is not None and not a.param.const}
    return False


def pick_benchmark_case(exercise: Exercise, constants: dict[str, int]) -> Picked | None:
    """The benchmark case to sample: the most work whose buffers fit, or None (see the module doc)."""
    bench = exercise.benchmark
    if bench is None or dependent_launches(exercise):
        return None
    best, cap_bytes = None, max_buffer_bytes()
    for case in bench.cases:
        env = env_for(case, constants)
        try:
            launches = resolve_launches(exercise.launches, env)
            fits = profile_model.footprint_bytes(exercise, env) <= cap_bytes
        except Exception:  # noqa: BLE001 — a case the plan cannot evaluate is not sampled
            continue
        flops, nbytes = profile_model._model_value(bench.flops, env), profile_model._model_value(bench.bytes, env)
        work = flops or (nbytes / 4 if nbytes else 0.0)
        blocks = sum(int(np.prod(l.grid)) for l in launches)
        if fits and work and work / blocks <= MAX_BLOCK_WORK and (best is None or work > best[0]):
            best = (work, case, launches)
    return None if best is None else Picked(best[1], best[2], profile_emu.SAMPLE_BLOCKS, True)


def pick_case(exercise: Exercise, constants: dict[str, int]) -> tuple[int, list[Any]] | None:
    """(index, launches) of the largest test case the counter takes, or None: the most threads,
    and among as many threads the most work (byte model, else flop model). The estimate scales
    the counts up from this case, so a case padded up to a tile (2 keys where a block takes 128)
    would scale its waste by 10^8 (flash attention, #16)."""
    best = fallback = None
    for index, case in enumerate(exercise.tests):
        env = env_for(case, constants)
        launches = resolve_launches(exercise.launches, env)
        threads = sum(int(np.prod(l.grid)) * int(np.prod(l.block)) for l in launches)
        bench = exercise.benchmark
        work = (profile_model._model_value(bench.bytes, env) or profile_model._model_value(bench.flops, env)
                or 0.0) if bench else 0.0
        if threads <= profile_emu.PROFILE_MAX_THREADS and (best is None or (threads, work) > best[0]):
            best = ((threads, work), index, launches)
        # a grid that never shrinks: the fewest threads, then the most work whose 4-byte accesses
        # stay under the runtime's record cap (full_sum: n = 1,048,579, not 2,097,157, whose
        # scalar loads and the rest reach it; a small case would leave most threads idle)
        fits = work <= FALLBACK_MAX_WORK_BYTES
        if threads <= profile_emu.PROFILE_FALLBACK_MAX_THREADS and \
                (fallback is None or (-threads, fits, work if fits else -work) > fallback[0]):
            fallback = ((-threads, fits, work if fits else -work), index, launches)
    best = best or fallback
    return None if best is None else (best[1], best[2])


def resources(source: str, exercise: Exercise, constants: dict[str, int],
              arch: str = REFERENCE_ARCH, compile_s: float | None = None) -> dict[str, dict[str, int]]:
    """ptxas's resources per kernel for `arch` (NVRTC needs no GPU); {} if it cannot say."""
    from kernels.compile import SIGNATURE_FILE, SOURCE_NAME
    from kernels.nvrtc_child import CompilerLimit, compile_bounded

    declarations = "\n".join(k.declaration() for k in exercise.kernels)
    full = f'{source}\n#line 1 "{SIGNATURE_FILE}"\n{declarations}\n'
    options = PTXAS_OPTIONS + [f"--gpu-architecture={arch}"] + [f"-D{k}={v}" for k, v in constants.items() if f"#define {k}" not in source]
    try:
        out = compile_bounded(full, SOURCE_NAME, options, compile_s or exercise.limits.compile_s)
    except (CompilerLimit, RuntimeError) as exc:
        log.info("profile: no resources: %s", exc)
        return {}
    return prof.parse_ptxas(out.log) if out.ok else {}


MAX_REGISTERS = 255  # per thread, on every GPU the judge runs on


def triton_resources(build: Any, env: dict[str, Any]) -> dict[str, dict[str, int]]:
    """The resources of the cubins a Triton attempt runs in the case `env`, per entry point,
    from the report of the ptxas that Triton's compile ran (TritonBinary.ptxas_log; no
    compile here). Said only where it is sure: an entry point that two of the case's
    binaries share (one kernel compiled with two sets of meta-parameters) is left out, as
    ncu's rows do not say which of them ran, and so is a report out of range (the report
    is the sandbox's, untrusted)."""
    keys: dict[str, set[str]] = {}
    for step in build.plan_for(env):
        binary = build.binary(step.binary)
        keys.setdefault(binary.name, set()).add(binary.key)
    found = {}
    for name, (key, *others) in keys.items():
        res = prof.parse_ptxas(build.binary(key).ptxas_log).get(name)
        if not others and res is not None and 0 < res["registers_per_thread"] <= MAX_REGISTERS:
            found[name] = res
    return found


def profile_emulated(exercise: Exercise, source: str, backend: Any, program: Any,
                     constants: dict[str, int], seed: int) -> dict[str, Any] | None:
    """The `profile` object for an accepted attempt on the emulator, or None."""
    picked = pick_benchmark_case(exercise, constants)
    if picked is None:
        test = pick_case(exercise, constants)
        if test is None:
            return None
        picked = Picked(exercise.tests[test[0]], test[1], 0, False)
    case, launches = picked.case, picked.launches
    rng = np.random.default_rng([seed, 1 << 20 if picked.benchmark else exercise.tests.index(case)])
    inputs = load_reference(exercise).generate(case_dict(case, constants), rng)
    shapes = buffer_shapes(exercise, env_for(case, constants))
    buffers = {b.name: make_guarded(b.name, b.role, b.dtype, shapes[b.name], b.init,
                                    inputs.get(b.name) if b.role in ("in", "inout") else None)
               for b in exercise.buffers}
    # ptxas's resources (NVRTC in its bounded helper process) while the counted run runs
    # in the emulator's: two processes, in parallel on a 2-core machine.
    # Both within what is left of the emulator's budget for the submission (#11): a
    # source slow for NVRTC alone, or a kernel that stalls only when counted, ends there.
    left = program.handle.remaining_s()
    if left <= 1.0:
        log.info("profile: %s: the submission's time budget is spent", exercise.id)
        return None
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(resources, source, exercise, constants, REFERENCE_ARCH,
                              min(float(exercise.limits.compile_s), left))
        try:
            ran = profile_emu.count(program, launches, buffers, exercise.limits.run_s, picked.sample_blocks)
        except profile_emu.ProfileUnavailable as exc:
            log.info("profile: %s: %s", exercise.id, exc)
            return None
        finally:
            del buffers, inputs  # a benchmark case's: hundreds of MiB, not kept past the run
        res = pending.result()
    sectors = profile_model.footprint_bytes(exercise, env_for(case, constants)) / 32
    counts = [profile_emu.sample_scaled(c, int(np.prod(l.grid)), max_sectors=sectors) for c, l in zip(ran, launches)]
    card = prof.GPUS[profile_model.gpu_name()]  # the card modelled ($KDOJO_PROFILE_GPU, #26)
    kernels = [prof.kernel_entry(l.kernel, l.grid, l.block, l.shared_bytes, res.get(l.kernel),
                                 prof.metrics_from_counts(c), card) for l, c in zip(launches, counts)]

    caveats = [c for c, on in (("inline_ptx_fallback", profile_model.has_inline_asm(source)),
                               ("truncated", any(c["truncated"] for c in counts)),
                               ("counted_test_case", not picked.benchmark and exercise.benchmark is not None))
               if on]
    note = "counted by the emulator; truncated" if "truncated" in caveats else ""
    doc = prof.build("emulator", case.label, kernels,
                     findings(kernels, counted_other_code="inline_ptx_fallback" in caveats), gpu=card, note=note,
                     caveats=caveats)

    try:  # the estimated time (#16): an estimate, labelled so, never a measurement
        est = profile_model.estimate(exercise, source, case, counts, [k["occupancy"] for k in kernels], constants)
        roof = profile_model.roofline(exercise, constants, est["time_ms"] if est else None, "estimate",
                                      traffic_bytes=est.get("dram_bytes") if est else None, traffic_from="emulator")
    except Exception:  # noqa: BLE001 — the counts stand without an estimate
        log.exception("profile: no estimate for %s", exercise.id)
        est = roof = None
    if est:
        if picked.benchmark:  # which blocks the counts are of (#26)
            est["sample"] = {"blocks": [c["blocks"] for c in ran],
                             "grid_blocks": [int(np.prod(l.grid)) for l in launches]}
        doc["estimate"] = est
    if roof:
        doc["roofline"] = roof
    return doc


def status(backend_name: str | None) -> dict[str, Any]:
    """For /api/status: whether attempts get a profile here, and who measures it."""
    source = measured_by(backend_name)
    return {"enabled": switched_on() and source is not None, "source": source, "ncu": source == "ncu"}
