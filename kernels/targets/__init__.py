"""The target registry: "cuda" (a GPU), "emu" (the CPU), and "auto" (cuda when a GPU is
visible, else emu). A target is one module with one class implementing
`kernels.targets.base.Target`; adding one is a row in `_TARGETS`.

Resolution in the supervising process must be cheap and must not create a CUDA
context (it may be the web process), so it only looks for a GPU device node or
`nvidia-smi` and for an importable cupy, and it reads `timed` from the table
below without importing the target; the job process creates the target for real.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

from kernels.targets.base import Target, TargetUnavailable


@dataclass(frozen=True)
class TargetEntry:
    """Where a target's class lives, and what the supervisor and the web may know of
    it without importing it (`timed` must equal the class's own: a test checks)."""

    module: str
    cls: str
    timed: bool


_TARGETS: dict[str, TargetEntry] = {
    "cuda": TargetEntry("kernels.targets.cuda", "CudaTarget", timed=True),
    "emu": TargetEntry("kernels.emu.target", "EmuTarget", timed=False),
}
CONCRETE = tuple(_TARGETS)
NAMES = ("auto", *CONCRETE)


def timed(name: str | None) -> bool:
    """True when the target `name` times its launches (a GPU): the benchmark, the GPU's
    achievements and its profile exist. False for an unknown name or None."""
    entry = _TARGETS.get(name or "")
    return entry is not None and entry.timed


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


def target_class(name: str) -> type[Target]:
    """The class of the concrete target `name` (imports its module). Raises TargetUnavailable."""
    entry = _TARGETS.get(name)
    if entry is None:
        raise TargetUnavailable(f"unknown backend {name!r}")
    return getattr(importlib.import_module(entry.module), entry.cls)


def emu_available() -> tuple[bool, str]:
    try:
        cls = target_class("emu")
    except ImportError as exc:
        return False, f"the emulator is not installed ({exc})"
    try:
        why = cls().unavailable_reason()
        # One line for the operator: no toolchain, or no sandbox (the emulator fails closed).
        return (True, "") if why is None else (False, why)
    except Exception as exc:  # noqa: BLE001 — any failure means "not available", said in one line
        return False, f"the emulator cannot run here ({exc})"


def resolve(name: str) -> str:
    """"auto"|"cuda"|"emu" → the concrete target name. Raises TargetUnavailable."""
    if name not in NAMES:
        raise TargetUnavailable(f"unknown backend {name!r} (choose auto, cuda or emu)")
    if name == "auto":
        if gpu_visible():
            return "cuda"
        name = "emu"
    if name == "cuda" and not gpu_visible():
        raise TargetUnavailable("backend 'cuda' is unavailable: no CUDA GPU (with cupy) is visible")
    if name == "emu":
        ok, why = emu_available()
        if not ok:
            raise TargetUnavailable(f"backend 'emu' is unavailable: {why}")
    return name


def create(name: str, capture: Any = None) -> Target:
    """Instantiate a concrete target (in the job process); `capture` (kernels.capture.
    OutputCapture) is where a GPU's printf goes."""
    return target_class(name)(capture)
