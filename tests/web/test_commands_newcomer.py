"""A newcomer's command line (issue #13, item 17): the database does not depend on
the current folder and each command names it; `--lessons` that is not there is
one line and exit 2; `--help` gives the real default; a closed pipe is quiet."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.datadir import REPO_ROOT, data_dir, describe_database
from app.settings import Settings


def _kdojo(*args: str, cwd: Path, env: dict[str, str] | None = None, **kw) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("KDOJO_")}
    environ["PYTHONPATH"] = str(REPO_ROOT)
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=120, **kw)


def test_the_default_database_does_not_depend_on_the_current_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("KDOJO_DATA_DIR", raising=False)
    monkeypatch.delenv("KDOJO_DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    assert data_dir() == REPO_ROOT / "var"  # a source checkout keeps its var/
    assert Settings().database_url == f"sqlite:///{REPO_ROOT / 'var' / 'kdojo.sqlite3'}"
    monkeypatch.setenv("KDOJO_DATA_DIR", str(tmp_path / "data"))
    assert Settings().queue_path == tmp_path / "data" / "kdojo-queue.sqlite3"


def test_a_database_command_names_its_database_from_any_folder(tmp_path: Path) -> None:
    elsewhere = tmp_path / "somewhere-else"
    elsewhere.mkdir()
    data = tmp_path / "data"
    done = _kdojo("users", "list", cwd=elsewhere, env={"KDOJO_DATA_DIR": str(data)})
    assert done.returncode == 0, done.stderr
    assert f"kdojo: database SQLite {data / 'kdojo.sqlite3'}" in done.stderr
    assert (data / "kdojo.sqlite3").is_file() and not list(elsewhere.iterdir())


def test_describe_database_hides_passwords() -> None:
    assert describe_database("postgresql+psycopg://kdojo:s3cret@db:5432/kdojo") == \
        "postgresql+psycopg://kdojo:***@db:5432/kdojo"


def test_lessons_that_are_not_there_are_one_line_and_exit_2(tmp_path: Path) -> None:
    for args in (("exercises", "--lessons", "/nonexistent"),
                 ("judge", "k.cu", "--exercise", "reduction.block_sum", "--lessons", "/nonexistent")):
        done = _kdojo(*args, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.strip().splitlines() == [f"kdojo {args[0]}: --lessons: no lessons folder at /nonexistent"]


def test_help_shows_the_real_default_lessons_folder(tmp_path: Path) -> None:
    done = _kdojo("exercises", "--help", cwd=tmp_path)
    assert done.returncode == 0
    assert str(REPO_ROOT / "lessons") in " ".join(done.stdout.split()).replace("- ", "-")


def test_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    """`kdojo exercises | head -1`: the reader goes away; no BrokenPipeError traceback."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("KDOJO_")}
    environ["PYTHONPATH"] = str(REPO_ROOT)
    script = f"{sys.executable} -m app.cli exercises | head -c 1 >/dev/null"
    # repeated: whether the write meets a closed pipe depends on timing
    for _ in range(3):
        done = subprocess.run(["bash", "-o", "pipefail", "-c", script], cwd=tmp_path, env=environ,
                              capture_output=True, text=True, timeout=120)
        assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr


def test_serve_on_a_port_in_use_is_one_line_and_exit_1(tmp_path: Path) -> None:
    """A second `kdojo serve` on a busy port used to start its judging worker on
    the first one's queue, log a page, and exit 3 from uvicorn's bind error."""
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = _kdojo("serve", "--port", str(port), cwd=tmp_path, env={"KDOJO_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"kdojo serve: cannot listen on 127.0.0.1:{port}: Address already in use "
        f"(another server there? choose another with --port)"]
    assert not (tmp_path / "data").exists()  # nothing was started or migrated


def test_a_worker_without_its_redis_is_one_line_and_exit_1(tmp_path: Path) -> None:
    """Redis not there: Huey logged a traceback on every poll (870 in 15 s) and
    the worker never ended."""
    import socket

    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    done = _kdojo("worker", cwd=tmp_path, env={"KDOJO_DATA_DIR": str(tmp_path / "data"), "KDOJO_QUEUE": "redis",
                                               "KDOJO_REDIS_URL": f"redis://:secret@127.0.0.1:{port}/0"})
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"kdojo worker: cannot reach Redis at redis://:***@127.0.0.1:{port}/0: "), last
    assert "Traceback" not in done.stderr and "secret" not in done.stderr
    serve = _kdojo("serve", "--port", "0", cwd=tmp_path,
                   env={"KDOJO_DATA_DIR": str(tmp_path / "data"), "KDOJO_QUEUE": "redis",
                        "KDOJO_REDIS_URL": f"redis://127.0.0.1:{port}/0"})
    assert serve.returncode == 1 and "Traceback" not in serve.stderr
    last = serve.stderr.strip().splitlines()[-1]
    assert last.startswith(f"kdojo serve: cannot reach Redis at redis://127.0.0.1:{port}/0"), last
