"""The benchmark stage on the GPU: time the submission and the baselines per size.

Inputs are generated on the device (reference.generate with a cupy Generator),
K sets per size rotated across timed calls so results cannot be cached by
identity; every timed call's output is stashed and re-checked against the
fp64 reference of its input set (for outputs up to STASH_MAX_BYTES; larger
outputs: the first calls and the last one). The references are computed after
the timed calls, from inputs generated again from the same seed: while the
learner's kernel runs, no expected output exists in the job's GPU or host
memory, and nothing the kernel writes can change the inputs they come from (#11).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from kernels.buffers import bits_view, sentinel_bits, storage_dtype
from kernels.check import compare
from kernels.plan import buffer_shapes, case_dict, env_for, load_reference, resolve_launches
from kernels.spec import BaselineSpec, Case, Exercise
from kernels.stats import geomean
from kernels.timing import L2Flusher, copy_bandwidth_gbps, measure

STASH_MAX_BYTES = 1 << 20
PLACEMENTS = 8  # addresses per input set for small outputs (see _CaseData)
PLACEMENT_MAX_BYTES = 64 << 10
_PEAK: dict[str, float] = {}


def peak_gbps(backend: Any, flush: Callable[[], None]) -> float:
    """Device-to-device copy bandwidth, measured once per process."""
    if "gbps" not in _PEAK:
        _PEAK["gbps"] = copy_bandwidth_gbps(flush=flush)
    return _PEAK["gbps"]


def run_benchmark(exercise: Exercise, backend: Any, program: Any, constants: dict[str, int],
                  seed: int, emit: Callable[[dict], None], peak: float | None = None,
                  max_sizes: int | None = None) -> tuple[dict[str, Any] | None, str | None]:
    """(benchmark section, problem). `problem` is a wrong-answer message from a re-check."""
    import cupy

    assert exercise.benchmark is not None
    flush = getattr(backend, "flusher", None) or L2Flusher(backend.l2_bytes)
    if peak:
        _PEAK.setdefault("gbps", float(peak))
    peak_value = peak_gbps(backend, flush)
    cases = exercise.benchmark.cases[:max_sizes] if max_sizes else exercise.benchmark.cases
    budget_s = exercise.limits.bench_s / max(1, len(cases) * (1 + len(exercise.benchmark.baselines)))
    sizes = []
    for index, case in enumerate(cases):
        emit({"stage": "benchmarking", "index": index, "total": len(cases)})
        entry, problem = _bench_case(exercise, backend, program, constants, case,
                                     (seed * 7919 + index) % 2**63, flush, min(2.0, budget_s), peak_value)
        cupy.get_default_memory_pool().free_all_blocks()
        if problem:
            return None, problem
        sizes.append(entry)
    return {"sizes": sizes, "geomean_ms": round(geomean([s["ms"] for s in sizes]), 6),
            "peak_gbps": round(peak_value, 1)}, None


class _CaseData:
    """K input sets for one case on the device, their references, and outputs."""

    def __init__(self, exercise: Exercise, case: Case, constants: dict[str, int], seed: int) -> None:
        import cupy

        self.reference = load_reference(exercise)
        self.cased = case_dict(case, constants)
        self.env = env_for(case, constants)
        shapes = buffer_shapes(exercise, self.env)
        in_bytes = sum(int(np.prod(shapes[b.name])) * storage_dtype(b.dtype).itemsize
                       for b in exercise.buffers if b.role in ("in", "inout"))
        free, _ = cupy.cuda.runtime.memGetInfo()
        self.k = 2 if 4 * in_bytes < free // 2 else 1
        self.seeds = [(seed * 31 + k) % 2**63 for k in range(self.k)]
        self.sets, self.fingerprints = [], []
        for k in range(self.k):
            inputs = self._generate(self.seeds[k])
            self.fingerprints.append(_fingerprint(inputs))
            arrays = {}
            for b in exercise.buffers:
                if b.role in ("in", "inout"):
                    arrays[b.name] = cupy.ascontiguousarray(cupy.asarray(inputs[b.name])) \
                        .astype(storage_dtype(b.dtype))
                else:
                    arrays[b.name] = cupy.empty(shapes[b.name], dtype=storage_dtype(b.dtype))
            self.sets.append(arrays)
            del inputs  # the set's arrays are copies; the references come after timing
        self.inits = {b.name: b for b in exercise.buffers if b.role in ("out", "inout", "scratch")}
        self.outputs = [b.name for b in exercise.buffers if b.role in ("out", "inout")]
        self.originals = [{n: a.copy() for n, a in s.items() if self.inits.get(n) is not None
                           and self.inits[n].role == "inout"} for s in self.sets]
        # Small outputs get PLACEMENTS copies per set, rotated across timed calls: a
        # kernel bound by atomics on one output (block_sum: one atomicAdd per block)
        # runs up to 8% faster or slower with that output's address (its L2 slice;
        # measured on an H100), so one allocation would make the time an accident
        # of the process. Rotating makes the median cover the placements.
        fresh = [b for b in exercise.buffers if b.role in ("out", "scratch")]
        small = sum(int(np.prod(shapes[b.name])) * storage_dtype(b.dtype).itemsize for b in fresh)
        placements = PLACEMENTS if fresh and small <= PLACEMENT_MAX_BYTES else 1
        self.slots = [self.sets[i % self.k] if i < self.k else
                      {**self.sets[i % self.k],
                       **{b.name: cupy.empty(shapes[b.name], dtype=storage_dtype(b.dtype)) for b in fresh}}
                      for i in range(self.k * placements)]

    def arrays(self, rep: int) -> dict[str, Any]:
        """The buffers of timed call `rep`: input set `rep % k`, one of its output placements."""
        return self.slots[rep % len(self.slots)]

    def _generate(self, seed: int) -> dict[str, Any]:
        """One input set from its seed: on the GPU when the exercise's reference.py
        works with cupy, else on the host (slower for large sizes, but any
        reference.py works). The same seed gives the same inputs again."""
        import cupy

        try:
            return self.reference.generate(self.cased, cupy.random.default_rng(seed))
        except Exception:  # noqa: BLE001 — numpy-only reference code: use the host path
            return self.reference.generate(self.cased, np.random.default_rng(seed))

    def expected(self, k: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Set k's fp64 references and error scales, from its inputs generated again:
        called only after the kernel's timed calls (see the module's docstring)."""
        import cupy

        ref = self.reference
        inputs = self._generate(self.seeds[k])
        if _fingerprint(inputs) != self.fingerprints[k]:  # generate() ignores its rng: our bug
            raise RuntimeError(f"{self.cased}: the exercise's generate() gave other inputs for the same seed")
        try:
            want = ref.reference(inputs, self.cased)
            scales = ref.error_scale(inputs, self.cased) if hasattr(ref, "error_scale") else {}
        except Exception:  # noqa: BLE001 — a numpy-only reference on device inputs
            inputs = {n: cupy.asnumpy(v) if hasattr(v, "get") else v for n, v in inputs.items()}
            want = ref.reference(inputs, self.cased)
            scales = ref.error_scale(inputs, self.cased) if hasattr(ref, "error_scale") else {}
        host = {n: cupy.asnumpy(v).astype(np.float64) for n, v in want.items()}
        for value in want.values():
            if hasattr(value, "get"):
                value.fill(0)  # no expected output left in the memory pool for a later case
        return host, {n: cupy.asnumpy(v) if hasattr(v, "get") else v for n, v in scales.items()}

    def reset(self, rep: int) -> None:
        arrays = self.arrays(rep)
        for name, spec in self.inits.items():
            if spec.role == "inout":
                arrays[name][...] = self.originals[rep % self.k][name]
            elif spec.init == "zeros":
                arrays[name].fill(0)
            else:
                bits_view(arrays[name]).fill(sentinel_bits(spec.dtype))


def _fingerprint(inputs: dict[str, Any]) -> tuple:
    """A few numbers that tell two generations of an input set apart (not its answer)."""
    marks = []
    for name in sorted(inputs):
        value = inputs[name]
        flat = value.ravel() if hasattr(value, "ravel") else np.asarray(value).ravel()
        ends = [flat[:16], flat[-16:]]
        ends = [e.get() if hasattr(e, "get") else np.asarray(e) for e in ends]
        marks.append((name, flat.shape, *(e.astype(np.float64).tobytes() for e in ends)))
    return tuple(marks)


def _bench_case(exercise: Exercise, backend: Any, program: Any, constants: dict[str, int],
                case: Case, seed: int, flush: Callable[[], None], cap_s: float,
                peak: float) -> tuple[dict[str, Any], str | None]:
    data = _CaseData(exercise, case, constants, seed)
    launches = resolve_launches(exercise.launches, data.env)
    stash: list[tuple[int, dict[str, Any]]] = []
    out_bytes = sum(data.sets[0][n].nbytes for n in data.outputs)

    def after(rep: int) -> None:
        if out_bytes <= STASH_MAX_BYTES or rep < 3:
            stash.append((rep, {n: data.arrays(rep)[n].copy() for n in data.outputs}))

    summary = measure(lambda rep: backend.launch_all(program, launches, data.arrays(rep)),
                      flush, reset=data.reset, after=after, cap_s=cap_s)
    # each slot's arrays now hold the output of the last timed call that used it
    for rep in range(max(0, summary.reps - len(data.slots)), summary.reps):
        stash.append((rep, {n: data.arrays(rep)[n] for n in data.outputs}))
    problem = _recheck(exercise, case, data, stash)
    if problem:
        return {}, problem
    entry = _entry(exercise, case, data.env, summary, peak)
    entry["baselines"] = {b.name: _baseline_ms(exercise, backend, b, data, flush, cap_s)
                          for b in exercise.benchmark.baselines}
    return entry, None


def _recheck(exercise: Exercise, case: Case, data: _CaseData, stash: list) -> str | None:
    import cupy

    expected = {k: data.expected(k) for k in sorted({rep % data.k for rep, _ in stash})}
    for rep, outputs in stash:
        want, scales = expected[rep % data.k]
        for name, array in outputs.items():
            problem = compare(name, cupy.asnumpy(array), want[name], exercise.buffer(name).dtype,
                              exercise.rtol, exercise.atol, scales.get(name, 1.0))
            if problem:
                return f"benchmark {case.label}: timed call {rep} gave a wrong result: {problem}"
    return None


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
    if baseline.max_n is not None and n > baseline.max_n:
        return None
    if baseline.python:
        fn = getattr(data.reference, baseline.python)
        summary = measure(lambda rep: fn(data.arrays(rep), data.cased), flush,
                          reset=data.reset, cap_s=cap_s)
        return round(summary.median_ms, 6)
    key = f"{exercise.id}:{baseline.name}"
    if key not in _BASELINE_PROGRAMS:
        _BASELINE_PROGRAMS[key] = backend.build_trusted(
            baseline.source, tuple(dict.fromkeys(l.kernel for l in baseline.launches)))
    program = _BASELINE_PROGRAMS[key]
    launches = resolve_launches(baseline.launches, data.env)
    summary = measure(lambda rep: backend.launch_all(program, launches, data.arrays(rep)),
                      flush, reset=data.reset, cap_s=cap_s, min_reps=3)
    return round(summary.median_ms, 6)
