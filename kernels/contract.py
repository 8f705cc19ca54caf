"""The judge → web contract: the v1 result document (its builders and validator) and
the events a judgement streams (`Event`), shared by the pipeline, the supervisor
(kernels/judge.py), the web's queue and streams (app/queue, app/streams.py) and the
page script (static/js reads the names from the page data, `page_events()`).

Shape (docs/architecture.md, design.md): version, exercise, backend, device,
verdict, message, compile, tests, diagnostics, benchmark (null when not run),
timings, and `timings_note` on backends whose timings mean nothing.

Additive to v1 (issue #13): `message_code` + `message_params` next to the
English `message` (on the document, on each test and, since #28, on each
diagnostic), so that the web can say
the same thing in the reader's language. A reader that does not know a code
shows the English `message`. The codes are `MESSAGE_CODES` (docs/judge.md).

Additive to v1 (issue #16): `profile`, only where a passing attempt was
profiled (kernels/profile/doc.py has its shape and validator).

Additive to v1 (issue #29): `language`, the kernel language judged ("cuda" or
"triton"); a document without it (written before) was CUDA.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from kernels.messages import MESSAGE_CODES, Message, code_fields  # noqa: F401 (the result document's message vocabulary, re-exported)

VERSION = 1
VERDICTS = ("accepted", "wrong_answer", "compile_error", "runtime_error", "time_limit_exceeded",
            "memory_limit_exceeded", "rejected", "internal_error")
TEST_STATUSES = ("pass", "fail", "error")
TIMING_KEYS = ("queued_s", "compile_s", "test_s", "bench_s", "total_s")
LANGUAGES = ("cuda", "triton")  # kernels.languages.NAMES (a test keeps them equal)
BACKENDS = ("cuda", "emu")  # kernels.targets.CONCRETE: the targets, by the operators' word



class Event(StrEnum):
    """Every event of a judgement, by the `stage` (judge) or SSE `event` (web) name.

    Public events go from the judge to its caller (`Judge.run(on_event=…)`) and, stored,
    to the page; private ones (leading "_") pass between the job process and the
    supervisor only; the web adds its own (`queued`, `profiled`)."""

    # public: the judge's, streamed to the page
    COMPILING = "compiling"
    TEST_START = "test_start"
    TESTING = "testing"
    TESTED = "tested"
    BENCHMARKING = "benchmarking"
    PROFILING = "profiling"
    DONE = "done"
    # the web's: a submission's place in the queue, and a GPU profile stored after `done` (#26)
    QUEUED = "queued"
    PROFILED = "profiled"
    # private: job process → supervisor (per-stage deadlines, the result)
    PRELOADED = "_preloaded"  # a spare's imports are done; it may be asked for its GPU phase
    READY = "_ready"
    COMPILED = "_compiled"
    CASE_START = "_test_start"
    BENCH_START = "_bench_start"
    BASELINES_START = "_baselines_start"  # baselines timed before any learner code (the gate, as _bench_start)
    BASELINES = "_baselines"  # their times, kept by the supervisor for later jobs
    PROFILE_START = "_profile_start"
    RESULT = "_result"
    INTERNAL_ERROR = "_internal_error"

    @property
    def private(self) -> bool:
        return self.value.startswith("_")


# The judge's public events the web stores and streams (the judge's own `done` is
# replaced by the web's, sent after XP is stored).
STORED_FROM_JUDGE = (Event.COMPILING, Event.TEST_START, Event.TESTING, Event.TESTED, Event.BENCHMARKING,
                     Event.PROFILING)
# What an event stream (GET /api/submissions/{id}/events) may carry.
STREAMED = (Event.QUEUED, *STORED_FROM_JUDGE, Event.DONE, Event.PROFILED)


def page_events() -> dict[str, str]:
    """The stream's event names for the page script (`K.page.events.tested` …)."""
    return {event.value: event.value for event in STREAMED}


def empty_compile() -> dict[str, Any]:
    return {"ok": False, "seconds": 0.0, "log": "", "diagnostics": []}


def build(*, exercise: str, backend: str | None, verdict: str, message: str,
          device: dict[str, Any] | None = None, compile_: dict[str, Any] | None = None,
          tests: list[dict[str, Any]] | None = None, diagnostics: list[dict[str, Any]] | None = None,
          benchmark: dict[str, Any] | None = None, timings: dict[str, float] | None = None,
          timings_note: str | None = None, profile: dict[str, Any] | None = None,
          language: str = "cuda") -> dict[str, Any]:
    """One v1 document. Every entry point (CLI, web worker) goes through here. `backend`
    (the target) is None only for an `internal_error` that reached no target."""
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}")
    if backend not in BACKENDS and not (backend is None and verdict == "internal_error"):
        raise ValueError(f"unknown backend {backend!r}")
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}")
    doc: dict[str, Any] = {
        "version": VERSION,
        "exercise": exercise,
        "language": language,
        "backend": backend,
        "device": {"name": None, "sm_clock_mhz": None, "temp_c": None, **(device or {})},
        "verdict": verdict,
        "message": str(message),
        **code_fields(message),
        "compile": compile_ or empty_compile(),
        "tests": tests or [],
        "diagnostics": diagnostics or [],
        "benchmark": benchmark,
        "timings": {key: round(float((timings or {}).get(key, 0.0)), 4) for key in TIMING_KEYS},
    }
    if timings_note:
        doc["timings_note"] = timings_note
    if profile is not None:
        doc["profile"] = profile
    return doc


def internal_error_document(exercise: str, message: str, *, backend: str | None = None,
                            language: str = "cuda") -> dict[str, Any]:
    """A valid v1 document for judging that failed on our side before the judge could
    write one (the web's fallback: a judge that raised, a job lost too often).
    `message` is the English sentence; its code is `internal`."""
    return build(exercise=exercise, backend=backend, verdict="internal_error",
                 message=Message(message, "internal"), language=language)


def _expect(errors: list[str], cond: bool, message: str) -> None:
    if not cond:
        errors.append(message)


def validate(doc: Any) -> list[str]:
    """Everything wrong with a document, as messages; empty when it is valid v1."""
    errors: list[str] = []
    if not isinstance(doc, dict):
        return ["document is not an object"]
    required = {"version", "exercise", "backend", "device", "verdict", "message", "compile",
                "tests", "diagnostics", "benchmark", "timings"}
    missing = sorted(required - set(doc))
    if missing:
        return [f"missing keys: {', '.join(missing)}"]
    extra = sorted(set(doc) - required - {"timings_note", "message_code", "message_params", "profile", "language"})
    _expect(errors, not extra, f"unknown keys: {', '.join(extra)}")
    _expect(errors, doc["version"] == VERSION, "version must be 1")
    _expect(errors, doc["verdict"] in VERDICTS, f"bad verdict {doc['verdict']!r}")
    _expect(errors, isinstance(doc["message"], str), "message must be a string")
    _validate_code(errors, doc, "")
    _expect(errors, doc["backend"] in BACKENDS or (doc["backend"] is None and doc["verdict"] == "internal_error"),
            "backend must be cuda or emu (null only for an internal_error)")
    _expect(errors, doc.get("language", "cuda") in LANGUAGES, f"language must be one of {', '.join(LANGUAGES)}")
    _expect(errors, isinstance(doc["device"], dict) and "name" in doc["device"], "device.name missing")
    _validate_compile(errors, doc["compile"])
    _validate_tests(errors, doc["tests"])
    _expect(errors, isinstance(doc["diagnostics"], list) and all(
        isinstance(d, dict) and {"kind", "line", "message"} <= set(d) for d in doc["diagnostics"]),
        "diagnostics entries need kind, line, message")
    for i, diag in enumerate(doc["diagnostics"] if isinstance(doc["diagnostics"], list) else []):
        if isinstance(diag, dict):
            _validate_code(errors, diag, f"diagnostics[{i}].")
    if doc["benchmark"] is not None:
        _validate_benchmark(errors, doc["benchmark"])
    if "profile" in doc:  # additive to v1 (#16): only on a profiled pass
        from kernels.profile.doc import validate as validate_profile

        errors += validate_profile(doc["profile"])
    timings = doc["timings"]
    _expect(errors, isinstance(timings, dict) and all(
        isinstance(timings.get(k), (int, float)) for k in TIMING_KEYS), "timings incomplete")
    return errors


def _validate_compile(errors: list[str], compile_: Any) -> None:
    ok = isinstance(compile_, dict) and {"ok", "seconds", "log", "diagnostics"} <= set(compile_)
    _expect(errors, ok, "compile needs ok, seconds, log, diagnostics")
    if ok:
        for d in compile_["diagnostics"]:
            _expect(errors, isinstance(d, dict) and {"line", "column", "severity", "message"} <= set(d),
                    "compile diagnostics need line, column, severity, message")


def _validate_tests(errors: list[str], tests: Any) -> None:
    if not isinstance(tests, list):
        errors.append("tests must be a list")
        return
    for i, test in enumerate(tests):
        ok = isinstance(test, dict) and {"name", "status", "message", "output"} <= set(test)
        _expect(errors, ok and test["status"] in TEST_STATUSES, f"tests[{i}] malformed")
        if ok:
            _validate_code(errors, test, f"tests[{i}].")


def _validate_code(errors: list[str], holder: dict[str, Any], where: str) -> None:
    """A code, when present, is known and comes with exactly its parameters."""
    if "message_code" not in holder and "message_params" not in holder:
        return
    code, params = holder.get("message_code"), holder.get("message_params")
    if code not in MESSAGE_CODES or not isinstance(params, dict):
        errors.append(f"{where}message_code must be a known code with message_params")
        return
    _expect(errors, set(params) == set(MESSAGE_CODES[code]) and all(
        isinstance(v, (str, int, float)) for v in params.values()),
        f"{where}message_params for {code} need {', '.join(MESSAGE_CODES[code]) or 'nothing'}")


def _validate_benchmark(errors: list[str], bench: Any) -> None:
    if not isinstance(bench, dict) or not {"sizes", "geomean_ms", "peak_gbps"} <= set(bench):
        errors.append("benchmark needs sizes, geomean_ms, peak_gbps")
        return
    for i, size in enumerate(bench["sizes"]):
        keys = {"n", "label", "dims", "ms", "ms_err", "best_ms", "baselines"}
        _expect(errors, isinstance(size, dict) and keys <= set(size),
                f"benchmark.sizes[{i}] needs {', '.join(sorted(keys))}")
    refused = bench.get("refused")
    if refused is None:
        return
    # a refused benchmark (#26) has no time: geomean_ms null, and a coded message
    _expect(errors, bench["geomean_ms"] is None, "a refused benchmark has geomean_ms null")
    if not isinstance(refused, dict) or not isinstance(refused.get("message"), str):
        errors.append("benchmark.refused needs a message")
        return
    _validate_code(errors, refused, "benchmark.refused.")
