"""NVRTC through ctypes: find the library, compile a source, return log and image.

The library is looked up in this order: `$KDOJO_NVRTC` (a file), the pip
package `nvidia-cuda-nvrtc` (`site-packages/nvidia/cu13/lib/libnvrtc.so.13`
or the older `cuda_nvrtc/lib` layout), `$CUDA_PATH/lib64`, `/usr/local/cuda/lib64`,
then `ctypes.util.find_library("nvrtc")`. NVRTC runs without a GPU.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from kernels import settings


class NvrtcUnavailable(RuntimeError):
    """No NVRTC library could be loaded."""


@dataclass(frozen=True)
class NvrtcLibrary:
    lib: ctypes.CDLL
    path: Path
    include_dirs: tuple[Path, ...]

    @property
    def version(self) -> tuple[int, int]:
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        return major.value, minor.value


def _pip_candidates() -> list[Path]:
    spec = importlib.util.find_spec("nvidia")
    roots = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    found: list[Path] = []
    for root in roots:
        for sub in ("cu13/lib", "cu12/lib", "cuda_nvrtc/lib"):
            found += sorted((root / sub).glob("libnvrtc.so.*[0-9]"))
    return [p for p in found if "alt" not in p.name and "builtins" not in p.name]


def candidate_paths() -> list[Path]:
    """Where NVRTC may be, most specific first."""
    paths: list[Path] = []
    if settings.value("KDOJO_NVRTC"):
        paths.append(Path(settings.value("KDOJO_NVRTC")))
    paths += _pip_candidates()
    # CUDA_PATH is CUDA's own variable (its installers set it), not a judge setting
    for root in filter(None, [os.environ.get("CUDA_PATH"), "/usr/local/cuda"]):
        paths += sorted(Path(root, "lib64").glob("libnvrtc.so*"), reverse=True)
    found = ctypes.util.find_library("nvrtc")
    if found:
        paths.append(Path(found))
    return paths


# Our own small headers for what NVRTC lacks (<cstdint>, <cfloat>, <cmath>'s
# constants, a CUB umbrella without host code …; docs/judge.md "Headers"),
# searched first. PRELUDE is pre-included in every compile (`uint`).
SHIM_DIR = Path(__file__).resolve().parent / "nvrtc_headers"
PRELUDE = "kdojo_prelude.h"


def _include_dirs(lib_path: Path) -> tuple[Path, ...]:
    # cuda_fp16.h, cooperative_groups.h and mma.h come from a CUDA toolkit's
    # include folder (or a wheel's) when one is installed; cuda/std/* and CUB
    # from CCCL: the pinned `nvidia-cuda-cccl` wheel (nvidia/cu13/include/cccl)
    # first, else the toolkit's.
    wheel_include = lib_path.resolve().parent.parent / "include"
    candidates = [wheel_include]
    candidates += [Path(root, "include") for root in
                   filter(None, [os.environ.get("CUDA_PATH"), "/usr/local/cuda"])]
    found = [p for p in candidates if (p / "cooperative_groups.h").is_file()]
    # the CCCL wheel may sit in another `nvidia` folder than NVRTC's (a --target install)
    spec = importlib.util.find_spec("nvidia")
    wheels = [Path(p, "cu13", "include") for p in (spec.submodule_search_locations or [])] if spec else []
    cccl = [p / "cccl" for p in [*wheels, wheel_include, *found] if (p / "cccl" / "cuda" / "std").is_dir()]
    return tuple(dict.fromkeys([SHIM_DIR, *found, *cccl[:1]]))


def _preload_builtins(lib_path: Path) -> None:
    # libnvrtc dlopens libnvrtc-builtins by name; from a pip wheel it is not on
    # the loader path, so load it first, globally, from beside libnvrtc.
    for builtins in sorted(lib_path.resolve().parent.glob("libnvrtc-builtins.so.*")):
        if "alt" in builtins.name:
            continue
        try:
            ctypes.CDLL(str(builtins), mode=ctypes.RTLD_GLOBAL)
            return
        except OSError:
            continue


@functools.lru_cache(maxsize=1)
def load() -> NvrtcLibrary:
    """The first NVRTC library that loads. Raises NvrtcUnavailable."""
    errors = []
    for path in candidate_paths():
        try:
            _preload_builtins(path)
            lib = ctypes.CDLL(str(path))
        except OSError as exc:
            errors.append(f"{path}: {exc}")
            continue
        _declare(lib)
        return NvrtcLibrary(lib, path, _include_dirs(path))
    detail = "; ".join(errors) or "no candidate found"
    raise NvrtcUnavailable(f"NVRTC not found (set KDOJO_NVRTC or pip install nvidia-cuda-nvrtc): {detail}")


def _declare(lib: ctypes.CDLL) -> None:
    p, sz, cp = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p
    lib.nvrtcGetErrorString.restype = cp
    lib.nvrtcCreateProgram.argtypes = [ctypes.POINTER(p), cp, cp, ctypes.c_int,
                                       ctypes.POINTER(cp), ctypes.POINTER(cp)]
    lib.nvrtcCompileProgram.argtypes = [p, ctypes.c_int, ctypes.POINTER(cp)]
    lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(p)]
    for name in ("nvrtcGetProgramLogSize", "nvrtcGetPTXSize", "nvrtcGetCUBINSize"):
        getattr(lib, name).argtypes = [p, ctypes.POINTER(sz)]
    for name in ("nvrtcGetProgramLog", "nvrtcGetPTX", "nvrtcGetCUBIN"):
        getattr(lib, name).argtypes = [p, ctypes.c_char_p]


@dataclass(frozen=True)
class NvrtcOutput:
    ok: bool
    log: str
    ptx: bytes  # empty when compiled to CUBIN or failed
    cubin: bytes  # empty unless an sm_XX target was given


def compile_program(source: str, name: str, options: list[str]) -> NvrtcOutput:
    """One NVRTC compile. `options` must include the architecture option if a CUBIN
    is wanted (`--gpu-architecture=sm_90`); with `compute_XX` only PTX comes back."""
    nv = load()
    lib = nv.lib
    prog = ctypes.c_void_p()
    _ok(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None))
    try:
        opts = [o.encode() for o in options] + [f"-I{d}".encode() for d in nv.include_dirs]
        opts.append(f"--pre-include={PRELUDE}".encode())
        array = (ctypes.c_char_p * len(opts))(*opts)
        status = lib.nvrtcCompileProgram(prog, len(opts), array)
        log = _read(lib, prog, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog").decode("utf-8", "replace")
        if status != 0:
            return NvrtcOutput(False, log.rstrip("\x00"), b"", b"")
        cubin = b""
        if any("sm_" in o for o in options):
            cubin = _read(lib, prog, "nvrtcGetCUBINSize", "nvrtcGetCUBIN")
        ptx = b"" if cubin else _read(lib, prog, "nvrtcGetPTXSize", "nvrtcGetPTX").rstrip(b"\x00")
        return NvrtcOutput(True, log.rstrip("\x00"), ptx, cubin)
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def _read(lib: ctypes.CDLL, prog: ctypes.c_void_p, size_fn: str, get_fn: str) -> bytes:
    size = ctypes.c_size_t()
    _ok(lib, getattr(lib, size_fn)(prog, ctypes.byref(size)))
    buffer = ctypes.create_string_buffer(size.value)
    _ok(lib, getattr(lib, get_fn)(prog, buffer))
    return buffer.raw


def _ok(lib: ctypes.CDLL, status: int) -> None:
    if status != 0:
        raise RuntimeError(f"NVRTC: {lib.nvrtcGetErrorString(status).decode()}")
