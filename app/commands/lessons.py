"""`kdojo lessons …`: for instructors (docs/authoring.md).

    kdojo lessons validate [PATH] [--json] [--backend auto|cuda|emu] [--no-judge]
    kdojo lessons new ID [--dir LESSONS_DIR] [--track TRACK] [--order N]
    kdojo lessons stamp PATH
    kdojo lessons coverage [LESSON_OR_EXERCISE …] [--dir LESSONS_DIR]

`validate` exits 0 when every lesson is valid, 1 when anything is wrong; `coverage`
exits 0 when the test cases of every exercise named (default: all) run every line of
its reference kernels that is not marked `unreached:`, 1 otherwise; usage errors print
one line and exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from app.commands.common import Parser, UsageError, run


def _lessons_dir() -> Path:
    env = os.environ.get("KDOJO_LESSONS_DIR")
    if env:
        return Path(env)
    from app.settings import REPO_ROOT

    return REPO_ROOT / "lessons"


def validate(args: argparse.Namespace) -> int:
    from kernels.targets import TargetUnavailable

    from app.authoring import validate as run_validate
    from app.authoring.run import NoLessons

    path = Path(args.path) if args.path else _lessons_dir()
    if not path.is_dir():
        raise UsageError(f"kdojo lessons validate: {path}: no such folder")
    try:
        report = run_validate(path.resolve() if path.is_absolute() else path, args.backend, not args.no_judge)
    except NoLessons as exc:
        raise UsageError(f"kdojo lessons validate: {exc}") from None
    except TargetUnavailable as exc:
        print(f"kdojo lessons validate: backend {args.backend!r} cannot run here: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(report.render())
    return 0 if report.ok else 1


def new(args: argparse.Namespace) -> int:
    from app.authoring.scaffold import ScaffoldError, create

    lessons_dir = Path(args.dir) if args.dir else _lessons_dir()
    try:
        folder = create(lessons_dir, args.id, args.track, args.order)
    except ScaffoldError as exc:
        raise UsageError(f"kdojo lessons new: {exc}") from None
    print(f"created {folder} (status draft); next: edit it, then `kdojo lessons validate {folder}`")
    return 0


def stamp(args: argparse.Namespace) -> int:
    from app.content.translation import stamp as write_stamp

    folder = Path(args.path)
    if not (folder / "lesson.toml").is_file():
        raise UsageError(f"kdojo lessons stamp: {folder}: no lesson.toml")
    missing = [lang for lang in ("ko", "en") if not (folder / f"{lang}.md").is_file()]
    if missing:
        raise UsageError(f"kdojo lessons stamp: {folder}: {missing[0]}.md is missing")
    hashes = write_stamp(folder)
    print(f"stamped {folder}: " + ", ".join(f"{k} {v}" for k, v in hashes.items()))
    return 0


def coverage(args: argparse.Namespace) -> int:
    from kernels.targets import TargetUnavailable
    from kernels.exercises import load_exercises
    from kernels.coverage import cover

    lessons_dir = Path(args.dir) if args.dir else _lessons_dir()
    if not lessons_dir.is_dir():
        raise UsageError(f"kdojo lessons coverage: {lessons_dir}: no such folder")
    exercises = load_exercises(lessons_dir)
    chosen = [e for e in exercises.values()
              if not args.names or e.id in args.names or e.lesson_dir.name in args.names
              or e.id.split(".")[0] in args.names]
    unknown = [n for n in args.names if not any(n in (e.id, e.lesson_dir.name, e.id.split(".")[0]) for e in chosen)]
    if unknown:
        raise UsageError(f"kdojo lessons coverage: no lesson or exercise {unknown[0]!r} in {lessons_dir}")
    ok = True
    for exercise in sorted(chosen, key=lambda e: e.id):
        try:
            report = cover(exercise)
        except TargetUnavailable as exc:
            print(f"kdojo lessons coverage: the emulator cannot run here: {exc}", file=sys.stderr)
            return 2
        print(report.render(), flush=True)
        ok = ok and report.ok
    return 0 if ok else 1


def build(parser: Parser) -> None:
    sub = parser.add_subparsers(metavar="SUBCOMMAND")
    p = sub.add_parser("validate", help="check one lesson folder, or every lesson under a folder")
    p.add_argument("path", nargs="?", help="a lesson folder or a lessons folder (default: KDOJO_LESSONS_DIR)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--backend", choices=("auto", "cuda", "emu"), default="auto")
    p.add_argument("--no-judge", action="store_true", help="skip the judged checks (fast)")
    p.set_defaults(func=validate)
    p = sub.add_parser("new", help="scaffold a lesson folder (a tiny exercise that validates as it is)")
    p.add_argument("id", help="the lesson id (lower-case, digits, '-')")
    p.add_argument("--dir", help="the lessons folder (default: KDOJO_LESSONS_DIR)")
    p.add_argument("--track", default="foundations")
    p.add_argument("--order", type=int, help="the lesson's order (default: the next free one after the track's last)")
    p.set_defaults(func=new)
    p = sub.add_parser("stamp", help="record that ko.md and en.md now say the same (translation stamp)")
    p.add_argument("path")
    p.set_defaults(func=stamp)
    p = sub.add_parser("coverage", help="check that the test cases run every line of the reference kernels")
    p.add_argument("names", nargs="*", help="lesson folders (02-reduction), lesson ids or exercise ids (default: all)")
    p.add_argument("--dir", help="the lessons folder (default: KDOJO_LESSONS_DIR)")
    p.set_defaults(func=coverage)


def main(argv: list[str]) -> int:
    return run("kdojo lessons", build, argv)
