"""The job process: warm up, read one job, run the pipeline, stream JSON-line events.

    python -m kernels.worker --backend cuda|emu [--lessons DIR]

Started by `kernels.judge` in a fresh process group with a clean environment.
Warming has two phases. First what launches nothing on the GPU (imports, cupy,
NVRTC, on a GPU the CUDA context), after which it announces
`{"stage": "_preloaded"}`; then the worker reads stdin. A line `{"warm": true}`
asks for the GPU phase (cupy's kernels, the L2 flush buffer, a first module load), after
which it announces `{"stage": "_ready"}` and reads the job line:
`{"source": …, "exercise": …, "language": "cuda"|"triton", "bench": bool, "seed": int,
"peak_gbps": float|null, "profile": bool, "gate": bool, "baselines": {…}|null}` (no "language": cuda) (`"mode": "profile"` instead: compile and profile
only, the result is `{"profile": …}`). With `gate`, the job waits after its
first timing event (`_baselines_start` or `_bench_start`) for a line `{"go": true}`: the supervisor sends it once no
spare is in its GPU phase, so no warming spare disturbs the timed calls.
A job line that comes first runs the GPU phase itself. The split lets the
supervisor keep a spare's GPU work from overlapping a running job's timings.
Events go to the original stdout; the kernel's printf goes to a capture file.
The last event is `_result` (the v1 document) or `_internal_error`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from typing import Any

from kernels.contract import Event

CONCRETE_TARGETS = ("cuda", "emu")  # kernels.targets.CONCRETE, without importing it before the capture starts


def _emitter(fd: int):
    stream = os.fdopen(fd, "w", buffering=1, encoding="utf-8")

    def emit(event: dict[str, Any]) -> None:
        stream.write(json.dumps(event) + "\n")
        stream.flush()
    return emit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kernels.worker")
    parser.add_argument("--backend", required=True, choices=CONCRETE_TARGETS)
    parser.add_argument("--lessons", default=None)
    args = parser.parse_args(argv)

    from kernels.capture import OutputCapture

    capture = OutputCapture()
    emit = _emitter(capture.start())
    try:
        from kernels import targets

        target = targets.create(args.backend, capture)
        _preload(target)
        emit({"stage": Event.PRELOADED})
        line = sys.stdin.readline()
        if not line.strip():
            return 0  # the supervisor closed us without a job (shutdown)
        job = json.loads(line)
        target.warm()  # the GPU phase
        emit({"stage": Event.READY, "pid": os.getpid()})
        if job.get("warm"):
            line = sys.stdin.readline()
            if not line.strip():
                return 0
            job = json.loads(line)
    except Exception:  # noqa: BLE001 — reported to the supervisor, which logs it
        emit({"stage": Event.INTERNAL_ERROR, "error": traceback.format_exc()})
        return 1
    try:
        result = _run_job(job, target, args.lessons, emit)
        emit({"stage": Event.RESULT, "result": result})
    except Exception:  # noqa: BLE001
        emit({"stage": Event.INTERNAL_ERROR, "error": traceback.format_exc()})
        return 1
    return 0


def _preload(target: Any) -> None:
    """The phase that launches nothing on the GPU: imports, the bounded NVRTC helper (which
    pays NVRTC's slow first compile in its own process, while this one imports) and the
    target's own preload (on a GPU, its CUDA context)."""
    from kernels import nvrtc_child

    nvrtc_child.start()  # before cupy: a small process to fork, no CUDA state
    import kernels.pipeline  # noqa: F401  (imports paid before the job, not during it)

    target.preload()


def _run_job(job: dict[str, Any], target: Any, lessons: str | None, emit) -> dict[str, Any]:
    from kernels.exercises import find_exercise
    from kernels.pipeline import run_pipeline, run_profile

    from kernels import languages

    language = str(job.get("language") or "cuda")
    exercise = languages.judged_exercise(find_exercise(job["exercise"], lessons), language, target.timed)
    if job.get("mode") == "profile":
        return {"profile": run_profile(exercise, job["source"], target, int(job["seed"]), emit,
                                       job.get("benchmark"), language=language)}
    options = {"peak": job.get("peak_gbps")}
    if job.get("max_bench_sizes"):
        options["max_sizes"] = int(job["max_bench_sizes"])
    if job.get("baselines") is not None:
        options["baselines"] = job["baselines"]
    return run_pipeline(exercise, job["source"], target, bench=bool(job.get("bench", True)),
                        seed=int(job["seed"]), emit=_gated(emit) if job.get("gate") else emit,
                        bench_options=options, profile=bool(job.get("profile", True)), language=language)


def _gated(emit):
    """`emit` that, after the first timing event (`_baselines_start` or `_bench_start`),
    waits for the supervisor's go line (or EOF)."""
    opened: list[bool] = []

    def gated(event: dict[str, Any]) -> None:
        emit(event)
        if event.get("stage") in (Event.BASELINES_START, Event.BENCH_START) and not opened:
            opened.append(True)
            sys.stdin.readline()
    return gated


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # skip interpreter teardown (CUDA context destruction, atexit hooks): the
    # supervisor already has everything it needs
    os._exit(code)
