"""`kdojo sandbox check`: which containment layers are active on this machine.

    kdojo sandbox check [--backend auto|cuda|emu] [--json]
    python -m kernels.doctor check …        # the same on a bare GPU box (no web stack)

One line per layer — namespaces (bubblewrap), seccomp, job memory, job
processes, compiler limits — with what is in use or, when it is missing, a
one-line remedy; on the GPU also whether kernels can reach host memory (HMM).
Exit 0 when every layer the backend requires is active, 1
otherwise, 2 for bad usage (one line on stderr). `summary()` is the same
report as data, for `/api/status` (admins only).

A layer is `active`, `fallback` (a weaker mechanism holds: rlimits instead of
a cgroup), or `missing`. Required: every layer but job memory/processes on the
emulator (its program has its own limits); compiler limits on the GPU.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import NoReturn

from kernels import cgroup, targets

EXIT_OK, EXIT_MISSING, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class Layer:
    name: str
    status: str  # "active" | "fallback" | "missing"
    detail: str  # what is in use, or why not (one line)
    remedy: str  # one line; "" when active
    required: bool

    @property
    def ok(self) -> bool:
        return self.status != "missing" or not self.required


def _namespaces(required: bool) -> Layer:
    try:
        from kernels.emu import jail

        mode = jail.mode()
    except Exception as exc:  # noqa: BLE001 — a broken probe is a missing layer, said plainly
        return Layer("namespaces", "missing", f"cannot probe: {exc}", "reinstall kernel-dojo", required)
    if mode.sandboxed:
        return Layer("namespaces", "active", mode.reason, "", required)
    waived = " (waived by KDOJO_EMU_UNSANDBOXED=1: staff-only classroom)" if jail.refusal() is None else ""
    return Layer("namespaces", "missing", mode.reason + waived,
                 "install bubblewrap (apt install bubblewrap) and allow unprivileged user namespaces "
                 "(sysctl kernel.unprivileged_userns_clone=1; kernel.apparmor_restrict_unprivileged_userns=0)",
                 required)


def _seccomp(required: bool) -> Layer:
    try:
        from kernels.emu import seccomp

        program = seccomp.program_filter()
    except Exception as exc:  # noqa: BLE001
        return Layer("seccomp", "missing", f"no filter for this machine: {exc}",
                     "run the emulator on x86-64 or aarch64 Linux", required)
    status = Path("/proc/self/status").read_text() if Path("/proc/self/status").exists() else ""
    if "Seccomp:" not in status:
        return Layer("seccomp", "missing", "the kernel has no seccomp (CONFIG_SECCOMP_FILTER)",
                     "use a kernel built with CONFIG_SECCOMP_FILTER=y", required)
    return Layer("seccomp", "active", f"the program's allow-list ({len(program) // 8} BPF instructions), "
                 "installed from outside before its first instruction", "", required)


def _job_limits(backend: str) -> list[Layer]:
    from kernels.sandbox import JobLimits

    limits = JobLimits.from_env()
    found = cgroup.probe()
    remedy = ("delegate a cgroup v2 subtree with the memory and pids controllers (systemd: Delegate=yes) "
              f"and point {cgroup.ROOT_ENV} at it")
    if found.available:
        where = f"cgroup v2 under {found.root}"
        return [Layer("job memory", "active", f"memory.max {limits.memory_mb} MB, no swap ({where})", "", False),
                Layer("job processes", "active", f"pids.max {limits.pids} ({where})", "", False)]
    if targets.timed(backend):  # a GPU target
        memory = Layer("job memory", "missing", f"none: RLIMIT_AS breaks CUDA; {found.reason}", remedy, False)
    else:
        memory = Layer("job memory", "fallback", f"RLIMIT_AS {limits.memory_mb} MB; {found.reason}", remedy,
                       False)
    if cgroup.nproc_enforced():
        processes = Layer("job processes", "fallback", f"RLIMIT_NPROC +{limits.pids} over the user's tasks",
                          remedy, False)
    else:
        processes = Layer("job processes", "missing", "none: root ignores RLIMIT_NPROC and no cgroup v2",
                          "run the judge as an unprivileged user, or " + remedy, False)
    return [memory, processes]


def _compiler_limits() -> Layer:
    """Start the NVRTC helper for real and read its limits back from /proc."""
    from kernels import nvrtc_child

    try:
        helper = nvrtc_child.CompilerHelper()
        try:
            out = helper.compile('extern "C" __global__ void k(int* p) { p[0] = 1; }', "check.cu",
                                 ["--gpu-architecture=compute_90"], timeout_s=30.0)
            limits = Path(f"/proc/{helper.proc.pid}/limits").read_text()
        finally:
            helper.close()
    except Exception as exc:  # noqa: BLE001
        return Layer("compiler limits", "missing", f"the NVRTC helper failed: {exc}",
                     "install NVRTC (pip install nvidia-cuda-nvrtc) or set KDOJO_NVRTC", True)
    line = next((ln for ln in limits.splitlines() if ln.startswith("Max address space")), "")
    bounded = out.ok and line.split()[3:4] != ["unlimited"]
    if not bounded:
        return Layer("compiler limits", "missing", f"NVRTC helper unbounded ({line.strip()})",
                     "report a bug: the helper sets RLIMIT_AS itself", True)
    return Layer("compiler limits", "active", f"NVRTC in a helper: {nvrtc_child.memory_limit_mb()} MB "
                 "of address space, the exercise's compile_s of CPU and wall time", "", True)


def _gpu_host_access(root: Path = Path("/sys/module/nvidia_uvm")) -> Layer:
    """With HMM, a CUDA kernel can dereference any host address of its process: the
    job process's own memory (inputs, the seed, Python objects) is then in reach."""
    name, remedy = "gpu host access", ("add `options nvidia_uvm uvm_disable_hmm=1` to /etc/modprobe.d/ "
                                       "and reload nvidia_uvm (or reboot)")
    param = root / "parameters" / "uvm_disable_hmm"
    if not root.exists():
        return Layer(name, "active", "nvidia_uvm is not loaded: no unified memory", "", False)
    if not param.exists():
        return Layer(name, "active", "this driver has no HMM: kernels reach only CUDA allocations", "", False)
    if param.read_text().strip() in ("Y", "1"):
        return Layer(name, "active", "HMM is off (uvm_disable_hmm=Y): kernels reach only CUDA allocations",
                     "", False)
    return Layer(name, "missing", "HMM is on: a kernel can read and write the job process's host memory",
                 remedy, False)


def summary(backend: str = "auto") -> list[Layer]:
    """Every layer for `backend` ("auto": the one the judge would pick here)."""
    if backend == "auto":
        try:
            backend = targets.resolve("auto")
        except Exception:  # noqa: BLE001 — no backend at all: check what the emulator needs
            backend = "emu"
    emu = not targets.timed(backend)  # the CPU target runs learner code in its own sandbox
    layers = [_namespaces(required=emu), _seccomp(required=emu), *_job_limits(backend), _compiler_limits()]
    return layers if emu else [*layers, _gpu_host_access()]


def render(layers: list[Layer]) -> str:
    lines = []
    for layer in layers:
        mark = {"active": "ok", "fallback": "fallback"}.get(layer.status, "MISSING" if layer.required
                                                          else "missing")
        line = f"{mark:<9}{layer.name:<16}{layer.detail}"
        if layer.remedy and layer.status != "active":
            line += f"\n{'':<25}remedy: {layer.remedy}"
        lines.append(line)
    return "\n".join(lines)


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="kdojo sandbox")
    parser.add_argument("action", choices=("check",))
    parser.add_argument("--backend", default="auto", choices=("auto", "cuda", "emu"))
    parser.add_argument("--json", action="store_true", help="the layers as a JSON list")
    try:
        options = parser.parse_args(sys.argv[1:] if argv is None else argv)
        layers = summary(options.backend)
    except _UsageError as exc:
        print(f"kdojo sandbox: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as exc:  # a bad KDOJO_JOB_* setting
        print(f"kdojo sandbox: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if options.json:
        print(json.dumps([{**asdict(layer), "ok": layer.ok} for layer in layers], indent=2))
    else:
        print(render(layers))
    return EXIT_OK if all(layer.ok for layer in layers) else EXIT_MISSING


if __name__ == "__main__":
    sys.exit(main())
