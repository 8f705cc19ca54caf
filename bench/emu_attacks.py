"""The emulator's hostile corpus, every source check bypassed: verdict, wall time, peak memory.

    PYTHONPATH=. python3 bench/emu_attacks.py [--out FILE]

Each attack of tests/security/emu_attacks/ is judged (the real pipeline and
sandbox, NVRTC and the source policy replaced by a pass, as in
tests/security/test_emu_containment.py) in a fresh Python process, so the
peak memory is that process tree's own: the child samples the resident
memory of itself and all its descendants (g++, bubblewrap, the emulated
program: VmRSS from /proc) every 0.1 s and reports the largest sum; the
parent also takes `ru_maxrss` from `wait4` and keeps the larger. The wall
time includes that process's start (~1 s).
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
DEFINES = {"forged_response.cu": {"HUGE": 1}}


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


def judge_one(name: str) -> dict:
    import threading

    peak, stop = [0], threading.Event()
    sampler = threading.Thread(target=_sample_peak, args=(peak, stop), daemon=True)
    sampler.start()
    try:
        row = _judge(name)
    finally:
        stop.set()
        sampler.join()
    row["tree_peak_mb"] = peak[0] >> 20
    return row


def _judge(name: str) -> dict:
    from kernels.catalog import find_exercise
    from kernels.emu.backend import EmuBackend
    from tests.security.test_emu_containment import attack, judge

    secret = Path("/tmp") / f"kdojo-secret-{uuid.uuid4().hex}"
    text = f"SECRET-{uuid.uuid4().hex}"
    secret.write_text(text + "\n")
    try:
        exercise = find_exercise("reduction.block_sum")  # its own limits: compile 15 s, 10 s a case
        result, _ = judge(exercise, EmuBackend(), attack(name, secret, **DEFINES.get(name, {})))
    finally:
        secret.unlink(missing_ok=True)
    return {"verdict": result["verdict"], "message": result["message"][:100],
            "host_content": text in json.dumps(result)}


def measure(name: str) -> dict:
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, __file__, "--one", name], stdout=subprocess.PIPE, cwd=ROOT)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    row = json.loads(out) if proc.returncode == 0 and out else {"verdict": f"(exit {proc.returncode})"}
    row.update(attack=name, wall_s=round(time.monotonic() - started, 2),
               peak_mb=max(usage.ru_maxrss // 1024, row.get("tree_peak_mb", 0)))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="also write the rows as JSON here")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(judge_one(args.one)))
        return
    rows = [measure(path.name) for path in sorted(ATTACKS.glob("*.cu"))]
    print("| attack | verdict | wall | peak memory | host content |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['attack']} | {r['verdict']} | {r['wall_s']:.1f} s | {r['peak_mb']} MB | "
              f"{'LEAKED' if r.get('host_content') else 'none'} |")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
