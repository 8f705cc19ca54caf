"""`kdojo judge` and `kdojo exercises` (also `python -m kernels judge …`).

    kdojo judge FILE --exercise ID [--language cuda|triton] [--backend auto|cuda|emu] [--json] [--no-bench]
    kdojo exercises [--json]

The language defaults to the file's suffix (`.triton.py`: triton, else cuda).
Exit status: 0 when the judge ran (whatever the verdict), 2 for bad usage
(unknown exercise, a language the exercise does not offer, missing file,
malformed spec), 3 when the requested backend is unavailable. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, NoReturn

from kernels.contract import Event
from kernels.printable import printable_doc, printable_json

EXIT_OK, EXIT_USAGE, EXIT_BACKEND = 0, 2, 3
COLOURS = {"accepted": "32", "wrong_answer": "31", "compile_error": "33", "rejected": "33",
           "runtime_error": "31", "time_limit_exceeded": "35", "memory_limit_exceeded": "35",
           "internal_error": "41"}


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _parser(command: str) -> argparse.ArgumentParser:
    from kernels.exercises import default_lessons_dir

    parser = _Parser(prog=f"kdojo {command}", add_help=True)
    parser.add_argument("--lessons", default=None,
                        help=f"lessons folder (default $KDOJO_LESSONS_DIR, else {default_lessons_dir()})")
    parser.add_argument("--json", action="store_true", help="print the v1 result document only")
    if command == "judge":
        from kernels import languages, targets

        parser.add_argument("file", help="kernel source file (CUDA: device code only; Triton: a .triton.py)")
        parser.add_argument("--exercise", required=True, help="exercise id, e.g. reduction.block_sum")
        parser.add_argument("--language", default=None, choices=languages.NAMES,
                            help="the file's kernel language (default: from its suffix, .triton.py is triton)")
        parser.add_argument("--backend", default="auto", choices=targets.NAMES,
                            help="the target: a GPU (cuda), the CPU (emu), or auto")
        parser.add_argument("--no-bench", action="store_true", help="skip the benchmark")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("judge", "exercises"):
        print("usage: kdojo judge FILE --exercise ID [--language cuda|triton] [--backend auto|cuda|emu]"
              " [--json] [--no-bench]"
              " | kdojo exercises", file=sys.stderr)
        return EXIT_USAGE
    command = args[0]
    try:
        options = _parser(command).parse_args(args[1:])
        _check_lessons(options.lessons)
        return judge(options) if command == "judge" else exercises(options)
    except UsageError as exc:
        print(f"kdojo {command}: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _check_lessons(folder: str | None) -> None:
    """A lessons folder that is not there is a usage error, not "unknown exercise"."""
    from kernels.exercises import default_lessons_dir

    path = Path(folder) if folder is not None else default_lessons_dir()
    if not path.is_dir():
        where = "--lessons" if folder is not None else "$KDOJO_LESSONS_DIR"
        raise UsageError(f"{where}: no lessons folder at {path}")


def exercises(options: argparse.Namespace) -> int:
    from kernels.exercises import load_catalog

    found, errors = load_catalog(options.lessons)
    if options.json:
        print(json.dumps([{"id": e.id, "title": e.title, "difficulty": e.difficulty, "xp": e.xp}
                          for e in found.values()]))
    else:
        for exercise in found.values():
            print(f"{exercise.id:<32} {exercise.difficulty:<7} {exercise.title['en']}")
    for error in errors:
        print(f"kdojo exercises: skipped: {error}", file=sys.stderr)
    return EXIT_OK


def judge(options: argparse.Namespace) -> int:
    from kernels import languages
    from kernels.targets import TargetUnavailable
    from kernels.judge import Judge, UnknownExercise
    from kernels.spec import SpecError

    path = Path(options.file)
    try:
        source = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    try:
        from kernels.exercises import find_exercise

        exercise = find_exercise(options.exercise, options.lessons)
    except KeyError:
        raise UsageError(f"unknown exercise {options.exercise!r} (see `kdojo exercises`)") from None
    except SpecError as exc:
        raise UsageError(str(exc)) from None
    language = options.language or languages.from_filename(path.name)
    if language not in exercise.languages:
        raise UsageError(f"{exercise.id} is not offered in {language} (it offers {', '.join(exercise.languages)})")
    try:
        judge_ = Judge(options.lessons, backend=options.backend, keep_spare=False)
    except TargetUnavailable as exc:
        print(f"kdojo judge: {exc}", file=sys.stderr)
        return EXIT_BACKEND
    except ValueError as exc:  # a bad KDOJO_TESTS_BUDGET_S / KDOJO_JOB_* setting, named
        raise UsageError(str(exc)) from None
    try:
        on_event = None if options.json or not sys.stderr.isatty() else _progress
        doc = judge_.run(source, options.exercise, bench=not options.no_bench, on_event=on_event,
                         language=language)
    except UnknownExercise:
        raise UsageError(f"unknown exercise {options.exercise!r} (see `kdojo exercises`)") from None
    except SpecError as exc:
        raise UsageError(str(exc)) from None
    finally:
        judge_.close()
    if options.json:
        print(printable_json(doc))
    else:
        print(render(doc, colour=sys.stdout.isatty()))
    return EXIT_OK


def _progress(event: dict[str, Any]) -> None:
    stage = event.get("stage")
    if stage in (Event.TEST_START, Event.TESTING):  # shown as the case starts (a hang shows as one)
        print(f"\r  testing {event['index'] + 1}/{event['total']}", end="", file=sys.stderr)
    elif stage in (Event.COMPILING, Event.BENCHMARKING, Event.PROFILING, Event.DONE):
        print(f"\r  {stage}…{' ' * 12}", end="\n" if stage == Event.DONE else "", file=sys.stderr)


def render(doc: dict[str, Any], colour: bool = False) -> str:
    """The human-readable report: verdict, diagnostics, tests, benchmark. Every string of
    `doc` is made printable first: learner text never reaches the terminal raw."""
    doc = printable_doc(doc)
    verdict = doc["verdict"]
    shown = f"\x1b[{COLOURS.get(verdict, '0')}m{verdict}\x1b[0m" if colour else verdict
    on = doc["backend"] if doc.get("language", "cuda") == "cuda" else f"{doc['language']} on {doc['backend']}"
    lines = [f"{doc['exercise']} [{on}]  {shown}  {doc['message']}"]
    for d in doc["compile"]["diagnostics"]:
        where = f"line {d['line']}:{d['column']}" if d["line"] else "—"
        lines.append(f"  {d['severity']:<8} {where:<12} {d['message']}")
    if doc["tests"]:
        lines.append("")
        width = max(len(t["name"]) for t in doc["tests"])
        for test in doc["tests"]:
            lines.append(f"  {test['status']:<5} {test['name']:<{width}}  {test['message']}".rstrip())
            if test["output"]:
                lines += ["        | " + line for line in test["output"].splitlines()[:5]]
    for d in doc["diagnostics"]:
        lines.append(f"  {d['kind']} (line {d['line']}): {d['message']}")
    lines += _render_bench(doc)
    from kernels.profile.doc import render as render_profile  # #16

    lines += render_profile(doc)
    if "timings_note" in doc:
        lines.append(f"\n  note: {doc['timings_note']}")
    t = doc["timings"]
    lines.append(f"\n  compile {t['compile_s']:.3f} s · tests {t['test_s']:.3f} s · "
                 f"bench {t['bench_s']:.3f} s · total {t['total_s']:.3f} s")
    return "\n".join(lines)


def _render_bench(doc: dict[str, Any]) -> list[str]:
    bench = doc.get("benchmark")
    if not bench:
        return []
    names = sorted({k for s in bench["sizes"] for k in s["baselines"]})
    lines = ["", f"  {'size':>12} {'median ms':>11} {'± err':>9} {'best ms':>10} {'GB/s':>8} "
             f"{'% peak':>7}" + "".join(f" {n + ' ms':>13}" for n in names)]
    for s in bench["sizes"]:
        row = (f"  {s['label']:>12} {s['ms']:>11.4f} {s['ms_err']:>9.4f} {s['best_ms']:>10.4f} "
               f"{_num(s.get('gbps')):>8} {_num(s.get('pct_of_peak')):>7}")
        row += "".join(f" {_num(s['baselines'].get(n), '.4f'):>13}" for n in names)
        lines.append(row)
    if bench.get("refused"):  # a time below the physical floor: no geomean (#26)
        lines.append(f"  refused: {bench['refused']['message']}")
    else:
        lines.append(f"  geomean {bench['geomean_ms']:.4f} ms · peak (device copy) {bench['peak_gbps']:.0f} GB/s")
    return lines


def _num(value: Any, fmt: str = ".1f") -> str:
    return "—" if value is None else format(value, fmt)
