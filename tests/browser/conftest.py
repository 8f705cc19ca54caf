"""Browser-test fixtures: a real `kdojo serve` (uvicorn, the embedded Huey worker,
the judge on the emulator backend) on 127.0.0.1 over the fixture lessons, and
Debian's Chromium driven by Playwright. Nothing here downloads a browser."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURE_LESSONS = REPO_ROOT / "tests" / "fixtures" / "lessons"
ARTIFACTS = REPO_ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
SERVER_START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(base_url: str, proc: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"kdojo serve exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
        try:
            if httpx.get(base_url + "/", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"kdojo serve did not answer in {SERVER_START_TIMEOUT_S} s:\n{log_path.read_text()[-3000:]}")


@contextlib.contextmanager
def serving(lessons_dir: Path, tmp: Path, *extra_args: str, judge_backend: str = "emu") -> Iterator[str]:
    """`kdojo serve` on a free port with a fresh database; yields its base URL."""
    port = free_port()
    env = {
        **os.environ,
        "KDOJO_ENVIRONMENT": "test",
        "KDOJO_DATABASE_URL": f"sqlite:///{tmp / 'kdojo.sqlite3'}",
        "KDOJO_QUEUE_PATH": str(tmp / "queue.sqlite3"),
        "KDOJO_LESSONS_DIR": str(lessons_dir),
        "KDOJO_JUDGE_BACKEND": judge_backend,
        "KDOJO_SECRET_KEY": "browser-tests-" + "y" * 32,
    }
    log_path = tmp / "server.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(port), *extra_args],
            cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base_url, proc, log_path)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A fresh server over the fixture lessons, with the embedded judging worker."""
    with serving(FIXTURE_LESSONS, tmp_path_factory.mktemp("server")) as base_url:
        yield base_url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: object, server: str) -> Iterator[object]:
    context = browser.new_context(base_url=server, locale="ko-KR", viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    problems: list[str] = []
    pg.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    pg.on("console", lambda msg: problems.append(f"console {msg.type}: {msg.text}") if msg.type in ("error", "warning") else None)
    pg.on("requestfailed", lambda req: problems.append(f"request failed: {req.url} {req.failure}"))
    yield pg
    print("\n".join(problems))  # pytest shows it when the test fails
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
