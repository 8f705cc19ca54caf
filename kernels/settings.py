"""The judge's settings: every `KDOJO_*` environment variable the judge reads (issue #30).

One declaration per setting in SETTINGS (its variable, kind, default, unit, meaning);
`value(name)` parses one of them, `judge_settings()` all of them into a JudgeSettings.
Both read os.environ when called, never at import: a job process reads its own
environment (kernels/sandbox.py passes the `to_jobs` ones on), and tests change it.

A bad value of a `strict` setting raises SettingError (a ValueError) whose text is one
line naming the variable and what it expects; `kdojo judge` and `kdojo sandbox` print
that line, and Judge() raises it when it starts, before any submission is judged. A
bad value of a lenient setting (a memory size read inside the job process, where an
error would fail a learner's submission) falls back to the default. docs/configuration.md
("Judge") lists every setting; tests/judge/test_settings_documented.py checks it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

_OFF = ("0", "false", "off", "no")


class SettingError(ValueError):
    """A setting's value cannot be used; str() is one line naming the variable."""


@dataclass(frozen=True)
class Setting:
    env: str  # the environment variable
    field: str  # its JudgeSettings attribute
    kind: str  # "seconds" | "count" | "megabytes" | "path" | "text" | "switch" | "names"
    default: object  # the value when it is unset or empty (None: none / decided elsewhere)
    unit: str
    meaning: str
    strict: bool = False  # a bad value raises SettingError (else: the default)
    minimum: float = 0  # seconds: the value must be above it; counts, megabytes: at least it
    to_jobs: bool = True  # the job process reads it, so the judge passes it on


SETTINGS: tuple[Setting, ...] = (
    Setting("KDOJO_LESSONS_DIR", "lessons_dir", "path", None, "folder",
            "the lessons the judge reads exercises from (default: <repo>/lessons)"),
    Setting("KDOJO_TESTS_BUDGET_S", "tests_budget_s", "seconds", None, "s",
            "wall time for all of a submission's test cases together (default: 10 on cuda, 15 on emu)",
            strict=True, to_jobs=False),
    Setting("KDOJO_JOB_MEMORY_MB", "job_memory_mb", "count", 8192, "MB",
            "memory of a job process with its helpers: cgroup memory.max, else RLIMIT_AS on the emulator",
            strict=True, minimum=16, to_jobs=False),
    Setting("KDOJO_JOB_PIDS", "job_pids", "count", 512, "tasks",
            "tasks (threads included) of a job: cgroup pids.max, else RLIMIT_NPROC",
            strict=True, minimum=16, to_jobs=False),
    Setting("KDOJO_JOB_NICE", "job_nice", "count", 10, "",
            "niceness added to an emulator job process and its programs (batch work: the web server on the "
            "same cores answers first); 0: none. A GPU job keeps the judge's",
            strict=True, minimum=0, to_jobs=False),
    Setting("KDOJO_CGROUP_ROOT", "cgroup_root", "path", None, "folder",
            "a delegated cgroup v2 folder under which job cgroups are made (default: the judge's own)",
            to_jobs=False),
    Setting("KDOJO_COMPILE_MEMORY_MB", "compile_memory_mb", "megabytes", 2048, "MB",
            "address space of the NVRTC helper process", minimum=256),
    Setting("KDOJO_NVRTC", "nvrtc", "path", None, "file",
            "the libnvrtc.so to load, tried before the pip wheels and CUDA_PATH"),
    Setting("KDOJO_EMU_BUDGET_S", "emu_budget_s", "seconds", 16.0, "s",
            "the emulator's wall time for a submission from the pipeline's start", strict=True),
    Setting("KDOJO_EMU_MEMORY_MB", "emu_memory_mb", "megabytes", 2048, "MB",
            "address space of a submission's two emulated programs together", minimum=64),
    Setting("KDOJO_EMU_COMPILE_MB", "emu_compile_mb", "megabytes", 2048, "MB",
            "memory of the emulator's compile step (its compilers share it)", minimum=64),
    Setting("KDOJO_EMU_UNSANDBOXED", "emu_unsandboxed", "text", None, "",
            "`1`: run submissions without bubblewrap's namespaces (a trusted classroom only)"),
    Setting("KDOJO_EMU_CXX", "emu_cxx", "path", None, "file", "the emulator's C++ compiler (default: g++ on PATH)"),
    Setting("KDOJO_EMU_CACHE", "emu_cache", "path", None, "folder",
            "where the emulator's runtime objects are kept between jobs"),
    Setting("KDOJO_TRITON_PYTHON", "triton_python", "path", None, "file",
            "the Python interpreter with Triton that runs Triton submissions in the sandbox (default: the judge's own)"),
    Setting("KDOJO_TRITON_COMPILE_S", "triton_compile_s", "seconds", 60.0, "s",
            "the least CPU time of the Triton compile step (an exercise may allow more: 4 x its compile_s)",
            strict=True),
    Setting("KDOJO_TRITON_COMPILE_JOBS", "triton_compile_jobs", "count", None, "",
            "how many of a Triton submission's binaries compile at once (default: half the cores, at most 8)",
            strict=True, minimum=1),
    Setting("KDOJO_TRITON_COMPILE_MB", "triton_compile_mb", "megabytes", 4096, "MB",
            "address space of the Triton compile step (Python, Triton's compiler and ptxas each)", minimum=512),
    Setting("KDOJO_PROFILE", "profile", "switch", True, "",
            "`0`, `false`, `off` or `no` turns profiling off everywhere"),
    Setting("KDOJO_NCU", "ncu", "path", None, "file", "the Nsight Compute `ncu` to run (default: ncu on PATH)"),
    Setting("KDOJO_PROFILE_GPU", "profile_gpu", "text", None, "",
            "the card the emulator's estimate models: H100 (the default), H200, A100, L4 or RTX4090"),
    Setting("KDOJO_NCU_SKIP", "ncu_skip", "names", (), "",
            "comma-separated ncu metrics to leave out (an ncu that lacks one refuses the whole run)"),
)
BY_ENV = {s.env: s for s in SETTINGS}
TO_JOBS = tuple(s.env for s in SETTINGS if s.to_jobs)


def _parse(setting: Setting, raw: str) -> object:
    """The value of `raw` (the variable's text, set and not empty); SettingError when bad."""
    name = setting.env
    if setting.kind == "seconds":
        try:
            seconds = float(raw.strip())
        except ValueError:
            raise SettingError(f"{name}: expected seconds, got {raw!r}") from None
        if not seconds > setting.minimum:
            raise SettingError(f"{name}: expected seconds > {setting.minimum:g}, got {raw!r}")
        return seconds
    if setting.kind == "count":
        text = raw.strip()
        if not text.isdigit() or int(text) < setting.minimum:
            raise SettingError(f"{name}: expected a whole number ≥ {setting.minimum:g}, got {raw!r}")
        return int(text)
    if setting.kind == "megabytes":
        try:
            return max(int(setting.minimum), int(raw))
        except ValueError:
            raise SettingError(f"{name}: expected megabytes, got {raw!r}") from None
    if setting.kind == "switch":
        return raw.strip().lower() not in _OFF
    if setting.kind == "names":
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    return raw  # path, text: as given


def value(name: str, environ: Mapping[str, str] | None = None) -> object:
    """The setting `name` (its variable) from `environ` (default os.environ, read now)."""
    setting = BY_ENV[name]
    raw = (os.environ if environ is None else environ).get(name, "")
    if not raw.strip() if setting.kind in ("seconds", "count") else not raw:
        return setting.default
    try:
        return _parse(setting, raw)
    except SettingError:
        if setting.strict:
            raise
        return setting.default  # lenient: read in the job process, where an error fails a submission


@dataclass(frozen=True)
class JudgeSettings:
    lessons_dir: str | None
    tests_budget_s: float | None
    job_memory_mb: int
    job_pids: int
    job_nice: int
    cgroup_root: str | None
    compile_memory_mb: int
    nvrtc: str | None
    emu_budget_s: float
    emu_memory_mb: int
    emu_compile_mb: int
    emu_unsandboxed: str | None
    emu_cxx: str | None
    emu_cache: str | None
    triton_python: str | None
    triton_compile_s: float
    triton_compile_jobs: int | None
    triton_compile_mb: int
    profile: bool
    ncu: str | None
    profile_gpu: str | None
    ncu_skip: tuple[str, ...]


def judge_settings(environ: Mapping[str, str] | None = None) -> JudgeSettings:
    """Every setting, read now; SettingError (one line) on the first bad strict one."""
    return JudgeSettings(**{s.field: value(s.env, environ) for s in SETTINGS})
