"""`kdojo serve` and `kdojo worker`: usage errors in one line, and a real server."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from app.settings import REPO_ROOT

KDOJO = [sys.executable, "-m", "app.cli"]


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(KDOJO + args, capture_output=True, text=True, timeout=60, cwd=REPO_ROOT,
                          env={**os.environ, **env})


def test_usage_errors_are_one_line_without_traceback():
    for args in (["serve", "--bogus"], ["serve", "--port", "eighty"], ["worker", "--gpu", "-1"]):
        out = _run(args)
        assert out.returncode == 2, args
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("kdojo "), out.stderr
        assert "Traceback" not in out.stderr


def test_a_bad_setting_is_one_line_naming_the_field():
    for command in ("serve", "worker"):
        out = _run([command], KDOJO_PORT="eighty")
        assert out.returncode == 2, command
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"kdojo {command}: bad settings: port:"), out.stderr


def test_production_with_the_placeholder_secret_refuses_to_start():
    out = _run(["serve"], KDOJO_ENVIRONMENT="production", KDOJO_SECRET_KEY="change-me")
    assert out.returncode == 2
    assert "KDOJO_SECRET_KEY" in out.stderr and "Traceback" not in out.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve_once(tmp_path, lessons_dir, *args: str, **extra_env: str) -> tuple[int, str, dict, Path]:
    """Start `kdojo serve`, wait for one answer from /api/me/progress, stop it with SIGINT."""
    port = _free_port()
    db = tmp_path / "serve.sqlite3"
    env = {k: v for k, v in os.environ.items() if k != "KDOJO_ACCESS_LOG"}  # the default unless given
    env.update({"KDOJO_DATABASE_URL": f"sqlite:///{db}", "KDOJO_LESSONS_DIR": str(lessons_dir),
                "KDOJO_QUEUE_PATH": str(tmp_path / "q.sqlite3"), "KDOJO_JUDGE_BACKEND": "emu", **extra_env})
    log = tmp_path / "serve.log"
    with log.open("w") as log_file:
        proc = subprocess.Popen(KDOJO + ["serve", "--port", str(port), *args], cwd=REPO_ROOT, env=env,
                                stdout=log_file, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        body = None
        while time.monotonic() < deadline and body is None:
            try:
                body = httpx.get(f"http://127.0.0.1:{port}/api/me/progress", timeout=2).json()
            except httpx.TransportError:
                assert proc.poll() is None, log.read_text()
                time.sleep(0.3)
        assert body is not None, log.read_text()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    text = log.read_text()
    assert f"serving http://127.0.0.1:{port}" in text
    return proc.returncode, text, body, db


def test_serve_migrates_and_answers_on_its_port(tmp_path, lessons_dir):
    returncode, log, body, db = _serve_once(tmp_path, lessons_dir)
    assert returncode == 0, log
    assert body["lessons_total"] == 2
    assert db.exists()
    assert "GET /api/me/progress" not in log  # no access log unless asked for (issue #4)
    # every lesson page rendered once before serving (#25), and no access log line for it
    assert "kdojo: 4 lesson pages rendered in" in log and "warming" not in log
    assert "GET /lessons/" not in log


def test_serve_logs_each_request_with_the_access_log_on(tmp_path, lessons_dir):
    returncode, log, _body, _db = _serve_once(tmp_path, lessons_dir, "--no-worker", KDOJO_ACCESS_LOG="true")
    assert returncode == 0, log
    assert '"GET /api/me/progress HTTP/1.1" 200' in log


def test_a_malformed_lesson_is_left_out_and_serve_serves_the_rest(tmp_path, lessons_dir):
    import shutil

    broken = tmp_path / "lessons"
    shutil.copytree(lessons_dir, broken)
    toml = broken / "02-reduction" / "lesson.toml"
    toml.write_text(toml.read_text().replace('difficulty = "easy"', 'difficulty = "trivial"'))
    returncode, log, body, _db = _serve_once(tmp_path, broken, "--no-worker")
    assert returncode == 0, log
    assert body["lessons_total"] == 1  # intro still served
    [line] = [line for line in log.splitlines() if "lesson left out" in line]
    assert "02-reduction/lesson.toml: difficulty: must be one of" in line
    assert "Traceback" not in log
    # the instructor's check still fails on it
    out = _run(["lessons", "validate", str(broken), "--no-judge"])
    assert out.returncode == 1 and "difficulty" in out.stdout + out.stderr
