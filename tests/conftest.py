"""Suite-wide options: the `gpu` marker skips cleanly where no CUDA GPU is visible."""

from __future__ import annotations

import functools
import shutil
import subprocess

import pytest


@functools.lru_cache(maxsize=1)
def gpu_available() -> bool:
    if shutil.which("nvidia-smi") is None:
        return False
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    if out.returncode != 0 or "GPU" not in out.stdout:
        return False
    try:
        import cupy  # noqa: F401
    except Exception:
        return False
    return True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (none visible)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
