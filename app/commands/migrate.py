"""`kdojo migrate`: bring the database schema to the latest revision and exit.

Safe to run from several processes at once (a lock serialises them; app.migrate);
`kdojo serve` and `kdojo worker` do the same at start, so running it first is
optional: it lets a deployment migrate once, before any process serves.
"""

from __future__ import annotations

import sys

from app.commands.common import CommandParser, UsageError, load_settings


def main(argv: list[str]) -> int:
    parser = CommandParser(prog="kdojo migrate", description=__doc__)
    parser.parse_args(argv)
    from app.logs import configure_logging

    configure_logging()
    try:
        settings = load_settings()
    except UsageError as exc:
        print(f"kdojo migrate: {exc}", file=sys.stderr)
        return 2
    return migrate(settings.database_url, "kdojo migrate")


def migrate(database_url: str, prog: str) -> int:
    """Migrate under the lock, saying in one line what happened; 0, or 1 on failure."""
    from app.datadir import describe_database
    from app.logs import redact
    from app.migrate import upgrade

    where = describe_database(database_url)
    try:
        migrated = upgrade(database_url)
    except Exception as exc:  # noqa: BLE001 - an operator reads one line, not a traceback
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(redact(f"{prog}: migrating {where} failed: {type(exc).__name__}: {reason}"), file=sys.stderr)
        return 1
    print(f"{prog}: database {where} {'migrated to' if migrated else 'is at'} the latest revision",
          file=sys.stderr)
    return 0
