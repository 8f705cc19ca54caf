"""What the `kdojo` sub-commands share: one-line usage errors (exit 2), failed
actions (exit 1), and a migrated database transaction."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn


class UsageError(Exception):
    """Misuse of a command: one line on stderr, exit 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, never argparse's usage block
        raise UsageError(f"{self.prog}: {message}")


class CommandParser(argparse.ArgumentParser):
    """For a command without sub-commands (`kdojo serve`, `kdojo worker`): a
    misuse prints one line and exits 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message}", file=sys.stderr)
        raise SystemExit(2)


def load_settings() -> Any:
    """The settings from the environment; a bad value is a UsageError naming its field."""
    from pydantic import ValidationError

    from app.settings import Settings

    try:
        settings = Settings()
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "settings"
        raise UsageError(f"bad settings: {where}: {err.get('msg', 'invalid')}") from None
    register_secrets(settings)
    return settings


def register_secrets(settings: Any) -> None:
    """Whatever the settings hold that must never be printed is masked from now on (app.logs)."""
    from app.logs import register_secret, register_url

    register_url(settings.database_url)
    register_url(settings.redis_url)
    register_secret(settings.secret_key)
    register_secret(getattr(settings, "metrics_token", ""))


def run(prog: str, build: Callable[[Parser], None], argv: list[str]) -> int:
    """Parse `argv` with the sub-commands `build` adds, then call the chosen one."""
    parser = Parser(prog=prog)
    build(parser)
    try:
        args = parser.parse_args(argv)
        if getattr(args, "func", None) is None:
            raise UsageError(f"{prog}: choose a sub-command (try `{prog} --help`)")
        return int(args.func(args))
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    except CommandFailed as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1


class CommandFailed(Exception):
    """The command was used right but could not do it (unknown user, bad password …)."""


@contextmanager
def database() -> Iterator[Any]:
    """A write transaction on the configured database (migrated first, as `kdojo serve` does)."""
    from app.db import make_engine, make_sessionmaker, transaction
    from app.migrate import upgrade
    from app.services.errors import ServiceError

    from app.datadir import describe_database

    settings = load_settings()
    # which database: a command run from another folder must not silently use another one
    print(f"kdojo: database {describe_database(settings.database_url)}", file=sys.stderr)
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        with transaction(make_sessionmaker(engine)) as session:
            yield session
    except ServiceError as exc:
        raise CommandFailed(exc.detail) from None
    finally:
        engine.dispose()
