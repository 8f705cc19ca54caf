"""Memory and process-count limits for a child process: cgroup v2, else rlimits.

Where a cgroup v2 directory is delegated to us (writable, with the `memory`
and `pids` controllers enabled for its children), every job gets its own
child cgroup with `memory.max`, `memory.swap.max = 0`, `memory.oom.group = 1`
and `pids.max`; afterwards we read `memory.peak` and the `oom_kill` count of
`memory.events`, kill whatever is left (`cgroup.kill`) and remove it.

Where not (cgroup v1 machines, containers without delegation), `probe()`
says why in one line and callers fall back to rlimits: `RLIMIT_AS` (not for
CUDA processes: the driver maps a huge address space) and `RLIMIT_NPROC`
(counted per user, and not enforced for root), with peak memory from the
reaped child's rusage.

    probe = cgroup.probe()                  # Probe(available, root, reason)
    if probe.available:
        group = cgroup.JobCgroup.create("job", memory_bytes=2 << 30, pids_max=256)
        Popen(..., preexec_fn=group.enter)  # or group.add(pid) after the start
        ...; group.peak_bytes(); group.oom_kills(); group.close()
    else:
        Popen(..., preexec_fn=cgroup.rlimit_hook(memory_bytes=2 << 30, nproc=256))

The root is `$KDOJO_CGROUP_ROOT` when set (a delegated directory, e.g. a
systemd unit's with `Delegate=yes`), else our own cgroup's directory.
"""

from __future__ import annotations

import os
import resource
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from kernels import settings

ROOT_ENV = "KDOJO_CGROUP_ROOT"
CONTROLLERS = ("memory", "pids")


class CgroupUnavailable(RuntimeError):
    """No usable cgroup v2 here; the message says why (one line)."""


@dataclass(frozen=True)
class Probe:
    available: bool
    root: Path | None
    reason: str  # why not, or where, in one line


def _mount_point() -> Path | None:
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if " - cgroup2 " in line and len(fields) > 4:
            return Path(fields[4])
    return None


def _own_dir(mount: Path) -> Path | None:
    try:
        entries = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for entry in entries:
        if entry.startswith("0::"):
            return mount / entry[3:].lstrip("/")
    return None


def _enabled(directory: Path) -> set[str]:
    try:
        return set((directory / "cgroup.subtree_control").read_text().split())
    except OSError:
        return set()


def probe(root: str | Path | None = None) -> Probe:
    """Whether job cgroups can be made here (and under which directory)."""
    chosen = root or settings.value(ROOT_ENV)
    if chosen:
        directory = Path(chosen)
    else:
        mount = _mount_point()
        if mount is None:
            return Probe(False, None, "no cgroup v2 hierarchy is mounted (cgroup v1 only)")
        directory = _own_dir(mount)
        if directory is None:
            return Probe(False, None, "this process is in no cgroup v2 group")
    try:
        available = set((directory / "cgroup.controllers").read_text().split())
    except OSError:
        return Probe(False, directory, f"{directory} is not a cgroup v2 directory")
    missing = [c for c in CONTROLLERS if c not in available]
    if missing:
        return Probe(False, directory, f"controller(s) {', '.join(missing)} not available in {directory} "
                                       "(bound to cgroup v1, or not delegated)")
    if not os.access(directory, os.W_OK):
        return Probe(False, directory, f"{directory} is not writable by uid {os.getuid()}")
    if not _enable(directory):
        return Probe(False, directory, f"cannot enable memory/pids in {directory}/cgroup.subtree_control "
                                       f"(processes in it? set {ROOT_ENV} to an empty delegated group)")
    return Probe(True, directory, f"cgroup v2 at {directory}")


def _enable(directory: Path) -> bool:
    missing = [c for c in CONTROLLERS if c not in _enabled(directory)]
    if not missing:
        return True
    try:
        (directory / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in missing))
    except OSError:
        return False  # EBUSY: the no-internal-processes rule; EACCES: not delegated
    return not [c for c in CONTROLLERS if c not in _enabled(directory)]


class JobCgroup:
    """One child cgroup for one job process (and everything it starts)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls, prefix: str, memory_bytes: int, pids_max: int,
               root: str | Path | None = None) -> "JobCgroup":
        """Raises CgroupUnavailable (with probe's reason) where there is no cgroup v2."""
        found = probe(root)
        if not found.available or found.root is None:
            raise CgroupUnavailable(found.reason)
        path = found.root / f"kdojo-{prefix}-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            path.mkdir()
        except OSError as exc:
            raise CgroupUnavailable(f"cannot create {path}: {exc.strerror}") from None
        group = cls(path)
        try:
            group._write("memory.max", str(int(memory_bytes)))
            group._write("pids.max", str(int(pids_max)))
            group._write("memory.swap.max", "0", optional=True)  # absent without swap accounting
            group._write("memory.oom.group", "1", optional=True)  # an OOM ends the whole job
        except OSError as exc:
            group.close()
            raise CgroupUnavailable(f"cannot configure {path}: {exc.strerror}") from None
        return group

    def _write(self, name: str, value: str, optional: bool = False) -> None:
        try:
            (self.path / name).write_text(value)
        except FileNotFoundError:
            if not optional:
                raise

    def _read(self, name: str) -> str | None:
        try:
            return (self.path / name).read_text()
        except OSError:
            return None

    def add(self, pid: int) -> None:
        """Move a running process in (its later children follow it)."""
        (self.path / "cgroup.procs").write_text(str(pid))

    def enter(self) -> None:
        """A `preexec_fn`: the child moves itself in before it execs."""
        fd = os.open(self.path / "cgroup.procs", os.O_WRONLY)
        try:
            os.write(fd, b"0")  # "0" means the writing process
        finally:
            os.close(fd)

    def peak_bytes(self) -> int | None:
        """The highest memory use so far (`memory.peak`, Linux ≥ 5.19)."""
        text = self._read("memory.peak")
        return int(text) if text and text.strip().isdigit() else None

    def oom_kills(self) -> int:
        """How many processes our memory.max made the kernel kill."""
        return parse_events(self._read("memory.events") or "").get("oom_kill", 0)

    def pids(self) -> list[int]:
        text = self._read("cgroup.procs") or ""
        return [int(p) for p in text.split()]

    def kill(self) -> None:
        """SIGKILL every process in the group (cgroup.kill, else one by one)."""
        try:
            self._write("cgroup.kill", "1")
            return
        except OSError:
            pass  # Linux < 5.14
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def close(self, timeout_s: float = 5.0) -> None:
        """Kill what is left and remove the group (killed processes take a moment to leave)."""
        if not self.path.exists():
            return
        self.kill()
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return  # left for the operator; `kdojo sandbox check` lists none of it
                time.sleep(0.01)

    def __enter__(self) -> "JobCgroup":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parse_events(text: str) -> dict[str, int]:
    """`memory.events` ("low 0\\nhigh 0\\nmax 3\\noom 1\\noom_kill 1\\n") as a dict."""
    events: dict[str, int] = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if value.strip().isdigit():
            events[name] = int(value)
    return events


# -- the fallback: rlimits ----------------------------------------------------

def nproc_enforced() -> bool:
    """RLIMIT_NPROC binds nobody with CAP_SYS_RESOURCE / CAP_SYS_ADMIN (root)."""
    return os.geteuid() != 0


def user_tasks(uid: int | None = None) -> int:
    """Tasks (threads included) of `uid` (default: ours) now, machine-wide:
    RLIMIT_NPROC counts them all."""
    uid = os.getuid() if uid is None else uid
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                count += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:
            continue
    return count


def set_capped(res: int, soft: int, hard: int) -> None:
    """setrlimit(res, (soft, hard)), both held to the current hard limit where it
    is finite (an unprivileged process may not raise it)."""
    _, current = resource.getrlimit(res)
    if current != resource.RLIM_INFINITY:
        soft, hard = min(soft, current), min(hard, current)
    resource.setrlimit(res, (soft, hard))


def rlimit_hook(memory_bytes: int | None, nproc: int | None) -> Callable[[], None]:
    """A `preexec_fn` setting RLIMIT_AS (None: none, e.g. CUDA) and RLIMIT_NPROC, no core dumps.

    RLIMIT_NPROC counts every task of the user, so the limit is set `nproc`
    above what the user runs now (counted here, before the fork)."""
    nproc_limit = user_tasks() + nproc if nproc is not None and nproc_enforced() else None

    def hook() -> None:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        for res, value in ((resource.RLIMIT_AS, memory_bytes), (resource.RLIMIT_NPROC, nproc_limit)):
            if value is not None:
                set_capped(res, value, value)
    return hook


def describe() -> str:
    """One line: which mechanism job limits use on this machine."""
    found = probe()
    if found.available:
        return f"cgroup v2 (memory.max, pids.max) under {found.root}"
    nproc = "RLIMIT_NPROC" if nproc_enforced() else "no process limit (root ignores RLIMIT_NPROC)"
    return f"rlimits (RLIMIT_AS, {nproc}): {found.reason}"
