"""Suite-wide options.

- The `gpu` marker skips cleanly where no CUDA GPU is visible.
- Every test under tests/browser is marked `browser` (a real Chromium and `kdojo serve`).
- Under pytest-xdist (`./dev test` runs `-n auto --dist loadgroup`), a module whose tests
  share a module-scoped fixture (a server, a browser, a judge) runs on one worker, so the
  fixture is built once, not once per worker.
- The judge's profiler is off (KDOJO_PROFILE=0) for the test folders that never read a
  profile: it would run every accepted source a second time with counting on. The profiler's
  own tests, the web and the browser tests keep it on (docs/testing.md).
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
PROFILE_OFF_DIRS = frozenset({"authoring", "emu", "judge", "lessons", "realworld", "security"})


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


def _test_folder(item: pytest.Item) -> str:
    """The first folder under tests/ that holds the item ("" for tests/ itself)."""
    try:
        parts = Path(item.path).resolve().relative_to(TESTS_DIR).parts
    except ValueError:
        return ""
    return parts[0] if len(parts) > 1 else ""


def _shares_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(d.scope == "module" for defs in info.name2fixturedefs.values() for d in defs)


# tryfirst: pytest-xdist's worker reads the xdist_group marks in its own hook of this name;
# marks added after it were ignored, and a module's fixture was built once per worker.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_gpu = None if gpu_available() else pytest.mark.skip(reason="needs a CUDA GPU (none visible)")
    for item in items:
        if _test_folder(item) == "browser":
            item.add_marker(pytest.mark.browser)
        if _shares_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__ if item.module else item.nodeid))
        if skip_gpu is not None and "gpu" in item.keywords:
            item.add_marker(skip_gpu)


@pytest.fixture(autouse=True)
def _profiler_off_where_unread(request: pytest.FixtureRequest) -> Iterator[None]:
    if _test_folder(request.node) not in PROFILE_OFF_DIRS:
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KDOJO_PROFILE", "0")
        yield
