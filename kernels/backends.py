"""Backend registry: "cuda", "emu", and "auto" (cuda when a GPU is visible, else emu).

Resolution in the supervising process must be cheap and must not create a
CUDA context (it may be the web process), so it only looks for a GPU device
node or `nvidia-smi` and for an importable cupy; the job process creates the
backend for real.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import shutil
import subprocess
from typing import Any

from kernels.backend import BackendUnavailable  # defined with the other backend types; named here too

NAMES = ("auto", "cuda", "emu")


@functools.lru_cache(maxsize=1)
def gpu_visible() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    # CUDA's own device mask (not a judge setting): hidden devices mean no GPU here
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    if any(os.path.exists(f"/dev/nvidia{i}") for i in range(16)):
        return True
    if shutil.which("nvidia-smi"):
        try:
            out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
            return out.returncode == 0 and "GPU" in out.stdout
        except (OSError, subprocess.TimeoutExpired):
            return False
    return False


def _emu_class() -> Any:
    module = importlib.import_module("kernels.emu.backend")
    return module.EmuBackend


def emu_available() -> tuple[bool, str]:
    try:
        cls = _emu_class()
    except ImportError as exc:
        return False, f"the emulator is not installed ({exc})"
    try:
        backend = cls()
        if backend.available():
            return True, ""
        # One line for the operator: no toolchain, or no sandbox (the emulator fails closed).
        why = getattr(backend, "unavailable_reason", lambda: None)()
        return False, why or "the emulator cannot run here (is g++ installed?)"
    except Exception as exc:  # noqa: BLE001 — any failure means "not available", said in one line
        return False, f"the emulator cannot run here ({exc})"


def resolve(name: str) -> str:
    """"auto"|"cuda"|"emu" → the concrete backend name. Raises BackendUnavailable."""
    if name not in NAMES:
        raise BackendUnavailable(f"unknown backend {name!r} (choose auto, cuda or emu)")
    if name == "auto":
        if gpu_visible():
            return "cuda"
        name = "emu"
    if name == "cuda" and not gpu_visible():
        raise BackendUnavailable("backend 'cuda' is unavailable: no CUDA GPU (with cupy) is visible")
    if name == "emu":
        ok, why = emu_available()
        if not ok:
            raise BackendUnavailable(f"backend 'emu' is unavailable: {why}")
    return name


def create(name: str, capture: Any = None) -> Any:
    """Instantiate a concrete backend (in the job process)."""
    if name == "cuda":
        from kernels.cuda_backend import CudaBackend

        return CudaBackend(capture)
    if name == "emu":
        return _emu_class()()
    raise BackendUnavailable(f"unknown backend {name!r}")
