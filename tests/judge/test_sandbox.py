import os
from pathlib import Path

from kernels.sandbox import clean_env


def test_clean_env_drops_everything_not_allowed(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("SECRET_KEY", "hunter2")
    monkeypatch.setenv("DATABASE_URL", "postgresql://x")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    env = clean_env(tmp_path)
    assert "SECRET_KEY" not in env and "DATABASE_URL" not in env
    assert env["CUDA_VISIBLE_DEVICES"] == "1"
    assert env["HOME"] == str(tmp_path) and env["TMPDIR"] == str(tmp_path)
    assert all(os.path.isabs(p) for p in env["PYTHONPATH"].split(os.pathsep))
