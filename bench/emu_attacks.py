"""The emulator's hostile corpus, every source check bypassed: verdict, wall time, peak memory.

    PYTHONPATH=. python3 bench/emu_attacks.py [--out FILE]

Each attack of tests/security/emu_attacks/ is judged (the real pipeline and
sandbox, NVRTC and the source policy replaced by a pass, as in
tests/security/test_emu_containment.py) in a fresh Python process, so the
peak memory is that process tree's own: the child samples the resident
memory of itself and all its descendants (g++, bubblewrap, the emulated
program: VmRSS from /proc) every 0.1 s and reports the largest sum; the
parent also takes `ru_maxrss` from `wait4` and keeps the larger. The wall
time includes that process's start (~1 s). That process is its children's
subreaper: anything still alive under it 0.5 s after the verdict (an orphan
included) is listed as left running.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = ROOT / "tests" / "security" / "emu_attacks"
# Attacks judged more than once (one row each), with these #defines.
VARIANTS = {
    "forged_response.cu": [{"HUGE": 1}],
    "exit_as_sigkill.cu": [{"STATUS": 137}, {"STATUS": 168}],
    "sleep_just_under.cu": [{"SLEEP_S": 9}, {"SLEEP_S": 9, "SPIN": 1}],
    "early_code.cu": [{"WHICH": 1}, {"WHICH": 2}, {"WHICH": 3}],
    "huge_bss.cu": [{"SIZE_MB": 1600}],
    "deep_recursion.cu": [{"WHERE": 0}, {"WHERE": 1}],
    "huge_object.cu": [{"SIZE_MB": 200}],
    "addr2line_bomb.cu": [{"DEBUG_MB": 40}],
    "raw_syscall_menu.cu": [{"NR": 56, "A0": 17}, {"NR": 435}, {"NR": 425, "A0": 8}, {"NR": 319},
                            {"NR": 62, "A0": -1, "A1": 9}, {"NR": 112}, {"NR": 323}, {"NR": 59}],
    # #27
    "forged_fault_report.cu": [{"REPORT": r} for r in range(5)],
    "object_wall.cu": [{"WHICH": w} for w in range(1, 11)],
    "static_shared_size.cu": [{"SIZE": 61440}],
    "unchecked_only.cu": [{"TRICK": 1}],
}
FIFO_MARKER = {"addr2line_altlink.cu"}  # @MARKER@ is a FIFO, not the secret file
KEEP_PREPROCESSED = {"pragma_flood.cu"}  # the checks on g++'s preprocessed file stay on
KEEP_OBJECTS = {"object_wall.cu", "static_shared_size.cu"}  # the check on the built object stays on (#27)


def _tree_rss_bytes(root: int) -> int:
    parents: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo += parents.get(pid, [])
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def _sample_peak(peak: list[int], stop) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], _tree_rss_bytes(os.getpid()))
        stop.wait(0.1)


def _left_running() -> list[str]:
    """Our live descendants (we are their subreaper: orphans come to us)."""
    me, left = os.getpid(), []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        pid = int(entry.name)
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:80]
            for _ in range(64):
                pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
                if pid in (me, 0, 1):
                    break
        except (OSError, IndexError, ValueError):
            continue
        if pid == me:
            left.append(cmd)
    return left


def judge_one(name: str, defines: dict[str, int]) -> dict:
    import ctypes
    import threading

    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER

    peak, stop = [0], threading.Event()
    sampler = threading.Thread(target=_sample_peak, args=(peak, stop), daemon=True)
    sampler.start()
    try:
        row = _judge(name, defines)
    finally:
        stop.set()
        sampler.join()
    row["tree_peak_mb"] = peak[0] >> 20
    time.sleep(0.5)
    row["left_running"] = _left_running()
    return row


def _judge(name: str, defines: dict[str, int]) -> dict:
    from kernels.exercises import find_exercise
    from kernels.emu.target import EmuTarget
    from tests.security.test_emu_containment import attack, judge

    secret = Path("/tmp") / f"kdojo-secret-{uuid.uuid4().hex}"
    text = f"SECRET-{uuid.uuid4().hex}"
    secret.write_text(text + "\n")
    marker = secret
    if name in FIFO_MARKER:
        marker = Path("/tmp") / f"kdojo-fifo-{uuid.uuid4().hex}"
        os.mkfifo(marker)
    try:
        exercise = find_exercise("reduction.block_sum")  # its own limits: compile 15 s, 10 s a case
        result, _ = judge(exercise, EmuTarget(), attack(name, marker, **defines),
                          keep_preprocessed=name in KEEP_PREPROCESSED, keep_objects=name in KEEP_OBJECTS)
    finally:
        secret.unlink(missing_ok=True)
        if marker != secret:
            marker.unlink(missing_ok=True)
    return {"verdict": result["verdict"], "message": result["message"][:100],
            "host_content": text in json.dumps(result)}


def measure(name: str, defines: dict[str, int]) -> dict:
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, __file__, "--one", json.dumps([name, defines])], stdout=subprocess.PIPE,
                            cwd=ROOT)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    row = json.loads(out) if proc.returncode == 0 and out else {"verdict": f"(exit {proc.returncode})"}
    label = name + (" (" + " ".join(f"{k}={v}" for k, v in defines.items()) + ")" if defines else "")
    row.update(attack=label, wall_s=round(time.monotonic() - started, 2),
               peak_mb=max(usage.ru_maxrss // 1024, row.get("tree_peak_mb", 0)))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="also write the rows as JSON here")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        name, defines = json.loads(args.one)
        print(json.dumps(judge_one(name, defines)))
        return
    rows = [measure(path.name, defines) for path in sorted(ATTACKS.glob("*.cu"))
            for defines in VARIANTS.get(path.name, [{}])]
    print("| attack | verdict | wall | peak memory | host content | left running |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        left = r.get("left_running")
        print(f"| {r['attack']} | {r['verdict']} | {r['wall_s']:.1f} s | {r['peak_mb']} MB | "
              f"{'LEAKED' if r.get('host_content') else 'none'} | "
              f"{'none' if left == [] else left if left else '?'} |", flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
