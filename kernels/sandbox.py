"""Job processes: a fresh process group, a clean environment, limits, wall-clock kills.

GPU time is not CPU time, so limits are wall-clock and enforced from outside:
the whole process group is killed (SIGKILL), which also frees the GPU. Memory
and process count: a job cgroup where cgroup v2 is delegated
(`kernels/cgroup.py`: `memory.max` = `KDOJO_JOB_MEMORY_MB`, `pids.max` =
`KDOJO_JOB_PIDS`), else rlimits — `RLIMIT_AS` for the emulator's job process
only (CUDA maps a huge address space) and `RLIMIT_NPROC`. Core dumps are off.
The peak memory comes from the cgroup (`memory.peak`) or from the reaped
process's rusage. Events are read line by line with a deadline; a line longer
than MAX_LINE_BYTES is refused (the worker's own events are small, except the
final result).
"""

from __future__ import annotations

import json
import logging
import os
import resource
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernels import cgroup, settings, targets
from kernels.exercises import REPO_ROOT
from kernels.contract import Event

log = logging.getLogger("kernels.judge")

MAX_LINE_BYTES = 16 * 2**20
STDERR_KEEP_BYTES = 64 * 1024
# variables a job may see; everything else is dropped
# The devices, CUDA's and CuPy's own variables, and every judge setting the job process
# reads (kernels/settings.py, `to_jobs`).
PASS_THROUGH = ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "CUDA_PATH", "LD_LIBRARY_PATH",
                "CUPY_CACHE_DIR", *settings.TO_JOBS)
MEMORY_ENV, PIDS_ENV = "KDOJO_JOB_MEMORY_MB", "KDOJO_JOB_PIDS"
# the job process, its NVRTC helper (up to KDOJO_COMPILE_MEMORY_MB) and, on the
# emulator, g++ and the program, together: a backstop above their own limits. On
# the GPU the host memory is ours (device code allocates none), and a numpy-only
# reference.py at 2^28 elements needs several GB of it.
DEFAULT_MEMORY_MB, DEFAULT_PIDS = settings.BY_ENV[MEMORY_ENV].default, settings.BY_ENV[PIDS_ENV].default


@dataclass(frozen=True)
class JobLimits:
    memory_mb: int = DEFAULT_MEMORY_MB
    pids: int = DEFAULT_PIDS
    nice: int = settings.BY_ENV["KDOJO_JOB_NICE"].default  # an emulator job's (a GPU job: none)

    @classmethod
    def from_env(cls) -> "JobLimits":
        """From $KDOJO_JOB_MEMORY_MB / $KDOJO_JOB_PIDS / $KDOJO_JOB_NICE; ValueError names a bad one."""
        return cls(memory_mb=settings.value(MEMORY_ENV), pids=settings.value(PIDS_ENV),
                   nice=settings.value("KDOJO_JOB_NICE"))


def clean_env(workdir: Path) -> dict[str, str]:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(workdir),
           "TMPDIR": str(workdir), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"}
    # the judge's own PYTHONPATH, so the job imports the same kernels/ (not a setting: passed on)
    paths = [str(REPO_ROOT)] + [str(Path(p).resolve()) for p in
                                os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    for name in PASS_THROUGH:
        if name in os.environ:
            env[name] = os.environ[name]
    # cupy compiles its own kernels (fill, sum) once; keep that cache across jobs
    env.setdefault("CUPY_CACHE_DIR", str(Path.home() / ".cupy" / "kernel_cache"))
    return env


def _no_core() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _limit(backend: str, limits: JobLimits) -> tuple[Any, Any, str]:
    """(preexec_fn, cgroup or None, "cgroup v2" | "rlimit") for a new job process."""
    try:
        group = cgroup.JobCgroup.create("job", limits.memory_mb << 20, limits.pids)
    except cgroup.CgroupUnavailable:
        # RLIMIT_AS would break CUDA (it reserves terabytes of address space)
        memory = None if targets.timed(backend) else limits.memory_mb << 20
        return cgroup.rlimit_hook(memory, limits.pids), None, "rlimit"

    def enter() -> None:
        _no_core()
        group.enter()
    return enter, group, "cgroup v2"


def _lower_priority(setup: Any, nice: int) -> Any:
    """`setup`, then `nice` added to the new process's niceness (its children inherit it):
    an emulator job is batch work beside the web server, which must answer first
    (issue #25; docs/configuration.md `KDOJO_JOB_NICE`)."""
    if not nice:
        return setup

    def hook() -> None:
        setup()
        os.nice(nice)
    return hook


class JobProcess:
    """One `python -m kernels.worker` process and its event stream."""

    def __init__(self, backend: str, lessons_dir: Path | None, limits: JobLimits | None = None) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="kdojo-job-"))
        # traversable, not listable: the emulator's sandboxed g++ and program run as
        # uid 65534 in their own folders under this one (its TMPDIR)
        self.workdir.chmod(0o711)
        self.limits = limits or JobLimits.from_env()
        setup, self.cgroup, self.limited_by = _limit(backend, self.limits)
        setup = _lower_priority(setup, 0 if targets.timed(backend) else self.limits.nice)
        command = [sys.executable, "-m", "kernels.worker", "--backend", backend]
        if lessons_dir is not None:
            command += ["--lessons", str(Path(lessons_dir).resolve())]
        self.started = time.monotonic()
        try:
            self.proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=self.workdir, env=clean_env(self.workdir), start_new_session=True,
                preexec_fn=setup, close_fds=True)
        except BaseException:
            if self.cgroup is not None:
                self.cgroup.close()
            _remove_tree(self.workdir)
            raise
        self._buffer = b""
        self.killed_by_us = False  # set by kill(): a death we did not cause is our fault
        self.peak_bytes: int | None = None  # known once reaped
        self.cpu_s: float | None = None  # CPU of the process and the children it reaped, once reaped
        self.oom_kills = 0  # processes our cgroup's memory.max killed (cgroup only)
        self.preloaded = False  # set once its "_preloaded" event has been read (imports done)
        self.ready = False  # set once the worker's "_ready" event has been read
        self.warm_requested = False
        self.lost = False  # a spare whose stream ended or broke before any job (poll())
        self.early_events: list[dict[str, Any]] = []  # read while waiting for "_ready"
        self._reaped = False
        self._wait_lock = threading.Lock()
        self.sent_result = False  # set by the supervisor when the "_result" event arrived
        self._stderr = bytearray()
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)

    def _drain_stderr(self) -> None:
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):
            self._stderr += chunk
            del self._stderr[:-STDERR_KEEP_BYTES]

    @property
    def stderr_tail(self) -> str:
        return bytes(self._stderr[-4000:]).decode("utf-8", "replace")

    def send(self, job: dict[str, Any], close: bool = True) -> None:
        """Send the job line and close stdin (one job per process); `close=False`
        keeps it open for `release()` (the benchmark's gate, kernels/worker.py)."""
        self._write(job, close=close)

    def release(self) -> None:
        """Let a job waiting at its benchmark's gate start timing; closes stdin."""
        self._write({"go": True}, close=True)

    def request_warm(self) -> None:
        """Ask for the GPU phase of warming (once)."""
        if not self.warm_requested:
            self.warm_requested = True
            self._write({"warm": True}, close=False)

    def _write(self, message: dict[str, Any], close: bool) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
            if close:
                self.proc.stdin.close()
        except (BrokenPipeError, ValueError):
            pass  # the process died (or stdin is closed); read_event reports EOF

    def read_event(self, deadline: float) -> dict[str, Any] | None | str:
        """The next event; None on EOF (process gone); "timeout" at the deadline."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = max(0.0, deadline - time.monotonic())  # at the deadline: one look, no wait
            if not self._selector.select(remaining):
                return "timeout"
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk
            if len(self._buffer) > MAX_LINE_BYTES:
                raise RuntimeError("job process sent an over-long event line")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def wait_ready(self, timeout_s: float) -> bool:
        """Block until the worker is warm. False if it died or `timeout_s` passed;
        any other event before `_ready` is a protocol error (it died trying)."""
        deadline = time.monotonic() + timeout_s
        self.request_warm()
        while not self.ready:
            event = self.read_event(deadline)
            if not isinstance(event, dict):
                return False
            if not self._note(event):
                self.early_events.append(event)
                return False
        return True

    def poll(self) -> None:
        """Read the warming events the worker has sent so far, without waiting."""
        while not (self.ready or self.lost or self.early_events):
            try:
                event = self.read_event(time.monotonic())
            except (RuntimeError, ValueError):
                event = None
            if event == "timeout":
                return
            if not isinstance(event, dict):
                self.lost = True  # ended (or broke its stream) before a job: the job will say so
                return
            if not self._note(event):
                self.early_events.append(event)

    def _note(self, event: dict[str, Any]) -> bool:
        """Take a warming event into the flags (True), or leave it for the job (False)."""
        stage = event.get("stage")
        if stage == Event.PRELOADED:
            self.preloaded = True
        elif stage == Event.READY:
            self.preloaded = self.ready = True
        else:
            return False
        return True

    def kill(self, reap_in_background: bool = False) -> None:
        """SIGKILL the whole process group and reap it (frees the GPU).

        A CUDA process takes a while to exit (the driver tears its context down);
        after a job that finished normally that need not delay its verdict, so
        `reap_in_background` leaves the reaping to a thread. After a timeout keep
        it synchronous: a kernel still running holds the GPU until the exit."""
        self.killed_by_us = True
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if self.cgroup is not None:
            self.cgroup.kill()  # also what left the process group (setsid)
        if reap_in_background:
            threading.Thread(target=self.wait, args=(30,), daemon=True, name="kdojo-reap").start()
        else:
            self.wait(10)

    def wait(self, timeout_s: float) -> int | None:
        """The exit status once the process has exited (None if not within `timeout_s`);
        the first caller reaps and cleans up, others (the reaping thread) wait for it."""
        if not self._wait_lock.acquire(timeout=timeout_s):
            return None
        try:
            return self._wait(timeout_s)
        finally:
            self._wait_lock.release()

    def _wait(self, timeout_s: float) -> int | None:
        if not self._reap(timeout_s):
            return None
        code = self.proc.returncode
        if self._reaped:
            return code
        self._reaped = True
        self._selector.close()
        for stream in (self.proc.stdout, self.proc.stdin):
            if stream and not stream.closed:
                try:
                    stream.close()
                except OSError:
                    pass
        self._stderr_thread.join(timeout=2)
        if self.proc.stderr and not self.proc.stderr.closed:
            self.proc.stderr.close()
        if self.cgroup is not None:
            self.peak_bytes = self.cgroup.peak_bytes() or self.peak_bytes
            self.oom_kills = self.cgroup.oom_kills()
            self.cgroup.close()
        _remove_tree(self.workdir)
        if self.peak_bytes is not None:  # for operators sizing KDOJO_JOB_MEMORY_MB
            log.info("job process %d ended (%s): peak memory %.0f MB (%s), CPU %s s", self.proc.pid, code,
                     self.peak_bytes / 2**20, "memory.peak" if self.cgroup else "ru_maxrss",
                     "?" if self.cpu_s is None else f"{self.cpu_s:.1f}")
        return code

    def _reap(self, timeout_s: float) -> bool:
        """Wait for the exit with wait4, keeping the peak RSS of the process (and of the
        descendants it reaped: the NVRTC helper, g++, the emulated program)."""
        deadline = time.monotonic() + timeout_s
        while self.proc.returncode is None:
            try:
                pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            except ChildProcessError:  # reaped by a concurrent Popen.wait
                self.proc.wait()
                break
            if pid:
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                self.peak_bytes = usage.ru_maxrss * 1024
                self.cpu_s = usage.ru_utime + usage.ru_stime
                break
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    def close(self) -> None:
        """Shut down an unused (spare) process."""
        if self.proc.poll() is None:
            self.kill()
        else:
            self.wait(5)


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
