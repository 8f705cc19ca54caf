"""The benchmark stage on the GPU: time the submission and the baselines per size.

No kernel can fake a time here (#26; kernels/bench_integrity.py has the parts):
- every timed call gets inputs no call saw before: the size's base input set
  (reference.generate) transformed by the call's own secret seed, written
  into the call's buffers before the L2 flush;
- outputs are poisoned (sentinel) before every call, and EVERY timed output is
  compared on the GPU with the fp64 reference of that call's inputs, computed
  after the call from the base set, whose keyed hash is checked first (a kernel
  that rewrote it is caught); no expected output exists while the kernel runs;
- a time below the device's physical floor for the case is refused: the
  benchmark keeps its sizes but has no time (`geomean_ms` null) and carries
  `refused` with a message code; the web flags the submission for review.
"""

from __future__ import annotations

import json
import secrets
from typing import Any, Callable

import numpy as np

from kernels import bench_integrity as integrity, languages
from kernels.buffers import bits_view, sentinel_bits, storage_dtype
from kernels.check import compare
from kernels.compile import CompileResult
from kernels.contract import Event
from kernels.plan import buffer_shapes, case_dict, env_for, load_reference, resolve_launches
from kernels.contract import Message, code_fields
from kernels.spec import BaselineSpec, Case, Exercise
from kernels.stats import geomean
from kernels.timing import L2Flusher, copy_bandwidth_gbps, measure

PLACEMENTS = 8  # addresses per input set for small outputs (see _CaseData)
PLACEMENT_MAX_BYTES = 64 << 10
_PEAK: dict[str, Any] = {}


class WrongTimedOutput(Exception):
    """A timed call's output was wrong (or the protected inputs were changed)."""


def peak_gbps(backend: Any, flush: Callable[[], None]) -> float:
    """Device-to-device copy bandwidth, measured once per process."""
    if "gbps" not in _PEAK:
        _PEAK["gbps"] = copy_bandwidth_gbps(flush=flush)
    return _PEAK["gbps"]


def device_limits(peak: float) -> dict[str, Any]:
    """The device's ceilings for the physical floor, read once per process."""
    if "limits" not in _PEAK:
        _PEAK["limits"] = integrity.device_limits(peak)
    return _PEAK["limits"]


def _cases(exercise: Exercise, max_sizes: int | None) -> tuple[Case, ...]:
    assert exercise.benchmark is not None
    return exercise.benchmark.cases[:max_sizes] if max_sizes else exercise.benchmark.cases


def _cap_s(exercise: Exercise, cases: int) -> float:
    """Each measurement's time cap: the benchmark's limit shared by every size's
    kernel and baselines, at most 2 s."""
    assert exercise.benchmark is not None
    return min(2.0, exercise.limits.bench_s / max(1, cases * (1 + len(exercise.benchmark.baselines))))


def _case_seed(seed: int, index: int) -> int:
    return (seed * 7919 + index) % 2**63


def run_benchmark(exercise: Exercise, backend: Any, program: Any, compiled: CompileResult,
                  seed: int, emit: Callable[[dict], None], peak: float | None = None,
                  max_sizes: int | None = None,
                  baselines: dict[str, dict[str, float | None]] | None = None
                  ) -> tuple[dict[str, Any] | None, str | None]:
    """(benchmark section, problem). `problem` is a wrong-answer message from a timed call.
    `baselines`: each size's baseline times (by size index) measured before any learner
    code ran (`baselines_first`); a size without them measures its baselines here."""
    import cupy

    flush = backend.flusher or L2Flusher(backend.l2_bytes)
    if peak:
        _PEAK.setdefault("gbps", float(peak))
    peak_value = peak_gbps(backend, flush)
    limits = device_limits(peak_value)
    cases = _cases(exercise, max_sizes)
    sizes = []
    for index, case in enumerate(cases):
        emit({"stage": Event.BENCHMARKING, "index": index, "total": len(cases)})
        try:
            entry = _bench_case(exercise, backend, program, compiled, case, _case_seed(seed, index), flush,
                                _cap_s(exercise, len(cases)), peak_value, limits, (baselines or {}).get(str(index)))
        except WrongTimedOutput as wrong:
            return None, wrong.args[0]  # a Message: its code says it in the reader's language
        finally:
            cupy.get_default_memory_pool().free_all_blocks()
        sizes.append(entry)
    section = {"sizes": sizes, "geomean_ms": round(geomean([s["ms"] for s in sizes]), 6),
               "peak_gbps": round(peak_value, 1), "floor_gbps": limits["floor_gbps"]}
    refused = refusal(sizes)
    if refused is not None:
        section.update(geomean_ms=None, refused=refused)
    return section, None


def refusal(sizes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The `refused` object when a size's median time is below its physical floor, else None."""
    for size in sizes:
        floor = size.get("floor_ms")
        if floor and size["ms"] < floor:
            message = Message(
                f"benchmark {size['label']}: {size['ms']:.6g} ms is below this GPU's physical floor of "
                f"{floor:.6g} ms ({size['floor']} bound); no time is recorded and staff will review it",
                "bench_below_floor", case=str(size["label"]), ms=float(size["ms"]),
                floor_ms=float(floor), bound=str(size["floor"]))
            return {"message": str(message), **code_fields(message)}
    return None


class _CaseData:
    """One case's protected base input set, the timed calls' buffers, and each
    call's fresh inputs and verification."""

    def __init__(self, exercise: Exercise, case: Case, compiled: CompileResult, seed: int) -> None:
        import cupy

        self.exercise = exercise
        self.reference = load_reference(exercise)
        self.cased = case_dict(case, compiled.constants)
        self.env = env_for(case, compiled.constants)
        self.tolerance = languages.get(compiled.language).tolerance(exercise)
        self.label = case.label
        shapes = buffer_shapes(exercise, self.env)
        self.inputs = [b.name for b in exercise.buffers if b.role in ("in", "inout")]
        self.secret = secrets.randbits(62) ^ seed  # the calls' seeds: host only
        self.key = integrity.new_key()
        # One base set: each call's inputs are fresh already (its own transformation of
        # it); more sets only multiplied the host's generation time (cross-entropy's
        # 4096 x 50304 logits take seconds with numpy).
        generated = self._generate(seed)
        self.base = {n: cupy.ascontiguousarray(cupy.asarray(generated[n]))
                     .astype(storage_dtype(exercise.buffer(n).dtype)) for n in self.inputs}
        self.extra = {n: v for n, v in generated.items() if n not in self.base}
        del generated
        self.hashes = {n: int(integrity.keyed_hash(a, self.key).get()[0]) for n, a in self.base.items()}
        self.inits = {b.name: b for b in exercise.buffers if b.role in ("out", "inout", "scratch")}
        self.outputs = [b.name for b in exercise.buffers if b.role in ("out", "inout")]
        working = {n: cupy.empty_like(a) for n, a in self.base.items()}
        # Small outputs get PLACEMENTS addresses, rotated across timed calls: a
        # kernel bound by atomics on one output (block_sum: one atomicAdd per block)
        # runs up to 8% faster or slower with that output's address (its L2 slice;
        # measured on an H100), so one allocation would make the time an accident
        # of the process. Rotating makes the median cover the placements.
        fresh = [b for b in exercise.buffers if b.role in ("out", "scratch")]
        small = sum(int(np.prod(shapes[b.name])) * storage_dtype(b.dtype).itemsize for b in fresh)
        placements = PLACEMENTS if fresh and small <= PLACEMENT_MAX_BYTES else 1
        self.slots = [{**working, **{b.name: cupy.empty(shapes[b.name], dtype=storage_dtype(b.dtype))
                                     for b in fresh}} for _ in range(placements)]
        self.host_reference = False
        self._device_ways = (lambda fn: fn, _on_cupy)
        self._way = 0

    def _generate(self, seed: int) -> dict[str, Any]:
        """One base set: on the GPU when the exercise's reference.py works with
        cupy, else on the host (slower for large sizes, but any reference.py works)."""
        import cupy

        try:
            return self.reference.generate(self.cased, cupy.random.default_rng(seed))
        except Exception:  # noqa: BLE001 — numpy-only reference code: use the host path
            return self.reference.generate(self.cased, np.random.default_rng(seed))

    def call_seed(self, rep: int) -> int:
        return (self.secret * 1_000_003 + rep * 7_919 + 17) % 2**63

    def arrays(self, rep: int) -> dict[str, Any]:
        """The buffers of timed call `rep` (inputs shared, outputs at one of the placements)."""
        return self.slots[rep % len(self.slots)]

    def prepare(self, rep: int) -> None:
        """Before call `rep` (untimed): its fresh inputs, then poisoned outputs."""
        arrays = self.arrays(rep)
        fresh = integrity.fresh_inputs(self.exercise, self.base, self.call_seed(rep))
        for name, value in fresh.items():
            arrays[name][...] = value
        del fresh
        for name, spec in self.inits.items():
            if spec.role == "inout":
                continue  # its fresh input is its initial value
            if spec.init == "zeros":
                arrays[name].fill(0)
            else:
                bits_view(arrays[name]).fill(sentinel_bits(spec.dtype))

    def verify(self, rep: int) -> None:
        """After call `rep`: the base set is intact, and every output matches the
        fp64 reference of the call's inputs. Raises WrongTimedOutput."""
        for name, array in self.base.items():
            if int(integrity.keyed_hash(array, self.key).get()[0]) != self.hashes[name]:
                raise WrongTimedOutput(Message(f"benchmark {self.label}: timed call {rep} changed memory the "
                                               f"judge keeps its copy of input '{name}' in", "bench_changed_input",
                                               case=str(self.label), call=rep, name=name))
        inputs = {**self.extra, **integrity.fresh_inputs(self.exercise, self.base, self.call_seed(rep))}
        want, scales = self._reference(inputs)
        del inputs
        arrays = self.arrays(rep)
        for name in self.outputs:
            dtype = self.exercise.buffer(name).dtype
            scale = scales.get(name, 1.0)
            rtol, atol = (integrity.TOLERANCE_FACTOR * t for t in self.tolerance)
            if integrity.device_mismatches(arrays[name], want[name], dtype, rtol, atol, scale) == 0:
                continue
            problem = compare(name, _host(arrays[name]), _host(want[name]).astype(np.float64), dtype,
                              rtol, atol, _host(scale))
            if problem:  # the host rule is the one the message explains
                text = f"benchmark {self.label}: timed call {rep} gave a wrong result: {problem}"
                if isinstance(problem, Message) and problem.code == "mismatch":
                    raise WrongTimedOutput(Message(text, "bench_mismatch", case=str(self.label), call=rep,
                                                   **problem.params))
                raise WrongTimedOutput(Message(text, "bench_wrong", case=str(self.label), detail=str(problem)))

    def _reference(self, inputs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The fp64 references and error scales: on the GPU when reference.py works with
        cupy arrays, or does once its module's `np` is cupy; else on the host (a
        2^28-element numpy reference takes seconds a call)."""
        ref = self.reference
        for device in self._device_ways[self._way:]:
            try:
                return device(ref.reference)(inputs, self.cased), \
                    device(ref.error_scale)(inputs, self.cased) if hasattr(ref, "error_scale") else {}
            except Exception:  # noqa: BLE001 — not this way: the next one from now on
                self._way += 1
        self.host_reference = True
        inputs = {n: _host(v) for n, v in inputs.items()}
        want = ref.reference(inputs, self.cased)
        scales = ref.error_scale(inputs, self.cased) if hasattr(ref, "error_scale") else {}
        return want, scales


def _on_cupy(fn: Callable) -> Callable:
    """`fn` with its module's `np` bound to cupy (most numpy reference code then runs on
    the device unchanged)."""
    import types

    import cupy

    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": cupy}, fn.__name__,
                              fn.__defaults__, fn.__closure__)


def _host(value: Any) -> Any:
    import cupy

    return cupy.asnumpy(value) if isinstance(value, cupy.ndarray) else value


def baseline_key(compiled: CompileResult) -> str:
    """What a size's baseline times depend on beyond the exercise: the compile's
    constants (they enter the sizes' expressions and the generated inputs)."""
    return json.dumps(sorted(compiled.constants.items()))


def baselines_first(exercise: Exercise, backend: Any, compiled: CompileResult, seed: int,
                    emit: Callable[[dict], None], known: dict[str, Any],
                    max_sizes: int | None = None) -> dict[str, dict[str, float | None]]:
    """The baseline times of every benchmark size, before any learner code runs in this
    process (a kernel cannot have touched the device memory they run in).

    `known`: the supervisor's times measured so, by `baseline_key` then size index.
    Sizes missing there are measured now, after `_baselines_start` (the benchmark's
    gate: no spare warms beside them), and reported in a `_baselines` event the
    supervisor keeps for later jobs."""
    import cupy

    assert exercise.benchmark is not None
    key = baseline_key(compiled)
    have = dict(known.get(key) or {})
    cases = _cases(exercise, max_sizes)
    missing = [i for i in range(len(cases)) if str(i) not in have]
    if not missing or not exercise.benchmark.baselines:
        return have
    emit({"stage": Event.BASELINES_START})
    flush = backend.flusher or L2Flusher(backend.l2_bytes)
    measured: dict[str, dict[str, float | None]] = {}
    for index in missing:
        try:
            data = _CaseData(exercise, cases[index], compiled, _case_seed(seed, index))
            measured[str(index)] = {b.name: _baseline_ms(exercise, backend, b, data, flush,
                                                         _cap_s(exercise, len(cases)))
                                    for b in exercise.benchmark.baselines}
        finally:
            cupy.get_default_memory_pool().free_all_blocks()
    emit({"stage": Event.BASELINES, "key": key, "sizes": measured})
    return {**have, **measured}


def _bench_case(exercise: Exercise, backend: Any, program: Any, compiled: CompileResult,
                case: Case, seed: int, flush: Callable[[], None], cap_s: float,
                peak: float, limits: dict[str, Any],
                baselines: dict[str, float | None] | None = None) -> dict[str, Any]:
    data = _CaseData(exercise, case, compiled, seed)
    launches = languages.get(compiled.language).launches(exercise, compiled, data.env)
    summary = measure(lambda rep: backend.launch_all(program, launches, data.arrays(rep)),
                      flush, reset=data.prepare, after=data.verify, cap_s=cap_s, gate=True)
    entry = _entry(exercise, case, data.env, summary, peak)
    entry["floor_ms"], entry["floor"] = integrity.floor_ms(exercise, data.env, limits)
    entry["floor_ms"] = round(entry["floor_ms"], 6)
    entry["reference_on"] = "host" if data.host_reference else "gpu"  # where each call's check ran
    entry["baselines"] = dict(baselines) if baselines is not None else \
        {b.name: _baseline_ms(exercise, backend, b, data, flush, cap_s) for b in exercise.benchmark.baselines}
    return entry


def _entry(exercise: Exercise, case: Case, env: dict, summary: Any, peak: float) -> dict[str, Any]:
    bench = exercise.benchmark
    dims = {d: env[d] for d in exercise.dims}
    entry: dict[str, Any] = {
        "n": env[exercise.dims[0]], "label": case.label.split(" ")[0].split("=")[-1], "dims": dims,
        "ms": round(summary.median_ms, 6), "mean_ms": round(summary.mean_ms, 6),
        "ms_err": round(summary.median_err_ms, 6), "best_ms": round(summary.best_ms, 6),
        "reps": summary.reps, "gbps": None, "pct_of_peak": None}
    seconds = summary.median_ms * 1e-3
    if bench.bytes is not None:
        gbps = bench.bytes.evaluate(env) / seconds / 1e9
        entry["gbps"] = round(gbps, 1)
        entry["pct_of_peak"] = round(100 * gbps / peak, 1)
    if bench.flops is not None:
        entry["gflops"] = round(bench.flops.evaluate(env) / seconds / 1e9, 1)
    return entry


_BASELINE_PROGRAMS: dict[str, Any] = {}


def _baseline_ms(exercise: Exercise, backend: Any, baseline: BaselineSpec, data: _CaseData,
                 flush: Callable[[], None], cap_s: float) -> float | None:
    n = data.env[exercise.dims[0]]
    if not baseline.runs_at(n):
        return None
    if baseline.python:
        fn = getattr(data.reference, baseline.python)
        summary = measure(lambda rep: fn(data.arrays(rep), data.cased), flush,
                          reset=data.prepare, cap_s=cap_s)
        return round(summary.median_ms, 6)
    key = f"{exercise.id}:{baseline.name}"
    if key not in _BASELINE_PROGRAMS:
        _BASELINE_PROGRAMS[key] = backend.build_trusted(
            baseline.source, tuple(dict.fromkeys(l.kernel for l in baseline.launches)))
    program = _BASELINE_PROGRAMS[key]
    launches = resolve_launches(baseline.launches, data.env)
    summary = measure(lambda rep: backend.launch_all(program, launches, data.arrays(rep)),
                      flush, reset=data.prepare, cap_s=cap_s, min_reps=3, gate=True)
    return round(summary.median_ms, 6)
