"""`kdojo backup [PATH]`: a consistent copy of the database while the server runs.

    kdojo backup                       # <data dir>/backups/kdojo-backup-<UTC time>.sqlite3
    kdojo backup /srv/backups/         # a new file in that folder
    kdojo backup /srv/backups/x.sqlite3

SQLite: SQLite's online backup API, then the copy is checked (intact, a Kernel
Dojo database, its migration revision). PostgreSQL: `pg_dump --format=custom`
when it is on PATH, else one line saying the command to run. The job queue
file is not copied (app/services/backup.py says why). Exit 0 done, 1 failed,
2 misuse.
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.commands.common import CommandParser, UsageError, load_settings

QUEUE_NOTE = ("not copied: the job queue {path} (it holds only submission ids; the database's queued "
              "submissions are enqueued again by the reaper)")


def main(argv: list[str]) -> int:
    parser = CommandParser(prog="kdojo backup", description=__doc__)
    parser.add_argument("path", nargs="?", help="a new file, or a folder to put it in "
                        "(default: <data dir>/backups/)")
    args = parser.parse_args(argv)
    from app.datadir import data_dir
    from app.services.backup import BackupError

    try:
        settings = load_settings()
    except UsageError as exc:
        print(f"kdojo backup: {exc}", file=sys.stderr)
        return 2
    path = Path(args.path).expanduser() if args.path else None
    try:
        if settings.is_sqlite:
            return _sqlite(settings, path, data_dir())
        return _postgres(settings.database_url, path, data_dir())
    except BackupError as exc:
        print(f"kdojo backup: {exc}", file=sys.stderr)
        return 1


def _sqlite(settings, path: Path | None, folder: Path) -> int:  # noqa: ANN001
    from app.services.backup import BackupError, backup_sqlite, sqlite_path, target_path

    source = sqlite_path(settings.database_url)
    if source is None:
        raise BackupError("an in-memory database cannot be backed up")
    summary = backup_sqlite(source, target_path(path, folder))
    print(f"backed up {source} to {summary.path} (migration revision {summary.revision}, "
          f"{summary.users} users, {summary.submissions} submissions, {summary.size_bytes / 1e6:.1f} MB)")
    if settings.queue == "sqlite":
        print(QUEUE_NOTE.format(path=settings.queue_path))
    return 0


def _postgres(database_url: str, path: Path | None, folder: Path) -> int:
    from app.services.backup import BackupError, have, pg_dump_command, run_pg, target_path

    target = target_path(path, folder, suffix=".pgdump")
    command = pg_dump_command(database_url, target)
    if not have("pg_dump"):
        shown = " ".join(command).replace(command[-1], "--dbname=<KDOJO_DATABASE_URL>")
        print(f"kdojo backup: pg_dump is not on PATH; on a machine with PostgreSQL's client tools run: {shown}",
              file=sys.stderr)
        return 1
    try:
        run_pg(command, database_url, "pg_dump")
    except BackupError:
        target.unlink(missing_ok=True)
        raise
    print(f"backed up the PostgreSQL database to {target} (pg_dump custom format; "
          f"`kdojo restore {target}` restores it)")
    return 0
