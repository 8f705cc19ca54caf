"""`kdojo restore PATH [--yes]`: replace the database with a backup from `kdojo backup`.

SQLite: refused while another process (a server, a worker) has the database
open; the backup is checked first (intact, a Kernel Dojo database, a migration
revision this version knows); the database it replaces is kept beside it
(`<file>.before-restore-<UTC time>`); then the migrations bring the restored
database up to this version. The job queue is left alone: a job whose
submission is not `queued` in the restored database is dropped when a worker
takes it (claiming is a conditional UPDATE). PostgreSQL (with `pg_dump` and `pg_restore` on
PATH): the same checks, the current database kept with `pg_dump`, its tables
dropped, the backup restored in one transaction, migrated.
Asks before replacing anything unless `--yes`. Exit 0 done, 1 failed, 2 misuse.
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.commands.common import CommandParser, UsageError, load_settings


def main(argv: list[str]) -> int:
    parser = CommandParser(prog="kdojo restore", description=__doc__)
    parser.add_argument("path", help="the backup file")
    parser.add_argument("--yes", action="store_true", help="replace the database without asking")
    args = parser.parse_args(argv)
    from app.services.backup import BackupError

    backup = Path(args.path).expanduser()
    try:
        settings = load_settings()
        if not backup.is_file():
            raise UsageError(f"{backup}: no such file")
        if not args.yes and not sys.stdin.isatty():
            raise UsageError("no terminal to confirm on; add --yes to replace the database")
        if settings.is_sqlite:
            return _sqlite(settings, backup, args.yes)
        return _postgres(settings.database_url, backup, args.yes)
    except UsageError as exc:
        print(f"kdojo restore: {exc}", file=sys.stderr)
        return 2
    except BackupError as exc:
        print(f"kdojo restore: {exc}", file=sys.stderr)
        return 1


def _confirm(question: str) -> bool:
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def _sqlite(settings, backup: Path, yes: bool) -> int:  # noqa: ANN001
    from app.migrate import upgrade
    from app.services.backup import BackupError, in_use, inspect, restore_sqlite, sqlite_path

    database = sqlite_path(settings.database_url)
    if database is None:
        raise BackupError("an in-memory database cannot be restored into")
    if in_use(database):
        raise BackupError(f"{database} is open in another process (a running `kdojo serve` or worker?); "
                          "stop it first")
    summary = inspect(backup)  # before asking: a wrong file is refused without a question
    if not yes and not _confirm(f"Replace {database} with {backup} (revision {summary.revision}, "
                                f"{summary.users} users, {summary.submissions} submissions)?"):
        print("kdojo restore: nothing changed", file=sys.stderr)
        return 1
    kept = restore_sqlite(backup, database)
    upgrade(settings.database_url)
    print(f"restored {database} from {backup} (was revision {summary.revision}; migrated to this version)")
    if kept is not None:
        print(f"the database it replaced is kept as {kept}")
    return 0


def _postgres(database_url: str, backup: Path, yes: bool) -> int:
    from app.migrate import upgrade
    from app.services.backup import (BackupError, have, known_revisions, pg_backup_revision, pg_dump_command,
                                     pg_empty, pg_restore_command, run_pg, timestamp)

    command = pg_restore_command(database_url, backup)
    if not have("pg_restore") or not have("pg_dump"):
        shown = " ".join(command).replace(command[-2], "--dbname=<KDOJO_DATABASE_URL>")
        print(f"kdojo restore: pg_restore or pg_dump is not on PATH; into an empty database run: {shown}, "
              "then start `kdojo serve` (it migrates)", file=sys.stderr)
        return 1
    revision = pg_backup_revision(backup)
    if revision not in known_revisions():
        raise BackupError(f"{backup} is at migration revision {revision!r}, which this version of "
                          "Kernel Dojo does not know (made by a newer version?)")
    if not yes and not _confirm(f"Replace the PostgreSQL database's contents with {backup} (revision {revision})?"):
        print("kdojo restore: nothing changed", file=sys.stderr)
        return 1
    kept = backup.with_name(f"before-restore-{timestamp()}.pgdump")
    run_pg(pg_dump_command(database_url, kept), database_url, "pg_dump of the current database")
    pg_empty(database_url)
    run_pg(command, database_url, f"pg_restore (the database is empty now; `kdojo restore {kept}` puts it back)")
    upgrade(database_url)
    print(f"restored the PostgreSQL database from {backup} (was revision {revision}; migrated to this version)")
    print(f"the database it replaced is kept as {kept}")
    return 0

