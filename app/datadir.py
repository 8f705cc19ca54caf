"""Where Kernel Dojo keeps its files by default (the SQLite database and queue),
independent of the folder a command is run from (issue #13).

`$KDOJO_DATA_DIR` when set; else `var/` of the source checkout this code runs
from (what `./dev` has always used); else, for an installed package, the
platform's user data folder (platformdirs: `~/.local/share/kernel-dojo` on Linux).
`KDOJO_DATABASE_URL` / `KDOJO_QUEUE_PATH` still override each file.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
APP_NAME = "kernel-dojo"


def data_dir() -> Path:
    env = os.environ.get("KDOJO_DATA_DIR")
    if env:
        return Path(env).expanduser().resolve()
    if (REPO_ROOT / "pyproject.toml").is_file() and (REPO_ROOT / "app").is_dir():
        return REPO_ROOT / "var"
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def default_database_url() -> str:
    return f"sqlite:///{data_dir() / 'kdojo.sqlite3'}"


def default_queue_path() -> Path:
    return data_dir() / "kdojo-queue.sqlite3"


def describe_database(url: str) -> str:
    """The database a command uses, for its first line: a SQLite file's absolute
    path, or a server URL without its password."""
    if url.startswith("sqlite"):
        path = url.split(":///", 1)[-1]
        return f"SQLite {Path(path).resolve()}" if path and path != ":memory:" else "SQLite (in memory)"
    from app.logs import mask_url

    return mask_url(url)
