"""The Triton sandbox holds: the files, the network, processes, time and memory (#29)."""

from __future__ import annotations

import signal
import textwrap
from pathlib import Path

import pytest

from kernels.triton import jail

pytestmark = pytest.mark.usefixtures("sandbox")


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "program.py"
    path.write_text(textwrap.dedent(body))
    return path


def _run(tmp_path: Path, body: str, **kw) -> jail.Outcome:
    limits = {"cpu_s": 30, "wall_s": 60, "memory_bytes": 2 << 30, **kw}
    return jail.run_once(_script(tmp_path, body), ["one", "two"], jail.work_dir(), **limits)


def test_the_program_sees_its_arguments_its_folder_and_triton(tmp_path: Path) -> None:
    done = _run(tmp_path, """
        import os, sys, triton
        print(sys.argv[1:], os.getcwd(), triton.__version__)
        open("written.txt", "w").write("ok")
        print(sorted(os.listdir(".")))
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().splitlines() == [
        f"['one', 'two'] {jail.WORK} {jail.runtime().triton_version}", "['written.txt']"]


def test_the_host_files_network_and_our_folders_are_out_of_reach(tmp_path: Path) -> None:
    done = _run(tmp_path, """
        import os, socket
        for path in ("/etc/passwd", "/etc", "/home", "/proc/self/environ", "/usr/bin", "/work"):
            print(path, os.path.exists(path))
        print("env", sorted(os.environ))
        try:
            socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        except OSError as exc:
            print("socket", exc.errno)
        for path in ("/kdojo/lib/x.py", "/kdojo/site/triton/x.py", "/usr/x"):
            try:
                open(path, "w")
                print("wrote", path)
            except OSError:
                pass
    """)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert all(line.endswith(" False") for line in lines[:6]), lines
    assert lines[6] == "env ['HOME', 'LANG', 'PATH', 'PWD', 'TMPDIR', 'TRITON_ALWAYS_COMPILE', " \
                       "'TRITON_BACKENDS_IN_TREE', 'TRITON_CACHE_DIR', 'TRITON_HOME']"
    assert lines[7] == "socket 1"  # EPERM
    assert len(lines) == 8  # nothing was written outside the work folder


def test_the_compile_step_may_start_ptxas(tmp_path: Path) -> None:
    done = _run(tmp_path, """
        import subprocess, triton, os
        ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")
        print(subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.splitlines()[0])
    """)
    assert done.returncode == 0, done.stderr
    assert "NVIDIA" in done.stdout.decode()


def test_wall_time_ends_a_program_that_never_stops(tmp_path: Path) -> None:
    done = _run(tmp_path, "import time\nwhile True:\n    time.sleep(1)\n", wall_s=2)
    assert done.timed_out and done.limited


def test_cpu_time_ends_a_busy_program(tmp_path: Path) -> None:
    done = _run(tmp_path, "while True:\n    pass\n", cpu_s=1)
    assert not done.timed_out and done.limited
    assert done.signal in (signal.SIGXCPU, signal.SIGKILL)


def test_memory_is_bounded(tmp_path: Path) -> None:
    done = _run(tmp_path, "x = bytearray(3 << 30)\nprint('allocated')\n")
    assert done.returncode != 0 and done.limited and b"allocated" not in done.stdout


def test_output_is_capped(tmp_path: Path) -> None:
    done = _run(tmp_path, "import sys\nfor _ in range(100):\n    sys.stdout.write('x' * 100000)\n")
    assert done.returncode == 0 and len(done.stdout) == jail.OUTPUT_CAP


@pytest.mark.parametrize("attempt", ["import os\nos.fork()",
                                     "import os, sys\nos.execv(sys.executable, ['python'])",
                                     "import subprocess\nsubprocess.run(['/bin/true'])"])
def test_a_server_may_start_no_process_or_program(tmp_path: Path, attempt: str) -> None:
    script = _script(tmp_path, "import sys\nprint(sys.stdin.readline().strip(), flush=True)\n" + attempt
                     + "\nprint('escaped', flush=True)\n")
    proc = jail.start_server(script, [], jail.work_dir(), cpu_s=20, memory_bytes=2 << 30)
    out, err = proc.communicate(b"hello\n", timeout=60)
    assert out == b"hello\n", err
    assert proc.returncode in (-signal.SIGSYS, 128 + signal.SIGSYS)


def test_a_server_keeps_threads_and_numpy(tmp_path: Path) -> None:
    script = _script(tmp_path, """
        import os, sys, threading, numpy, kdojo_helper
        print("interpret", os.environ["TRITON_INTERPRET"], kdojo_helper.NAME, flush=True)
        t = threading.Thread(target=lambda: None)
        t.start(); t.join()
        for line in sys.stdin:
            print(int(numpy.int64(line)) * 2, flush=True)
    """)
    proc = jail.start_server(script, [], jail.work_dir(), cpu_s=20, memory_bytes=2 << 30,
                             extra_env={"TRITON_INTERPRET": "1"}, read_only=[_helper(tmp_path)])
    out, err = proc.communicate(b"21\n4\n", timeout=60)
    assert (proc.returncode, out) == (0, b"interpret 1 helper\n42\n8\n"), err


def _helper(tmp_path: Path) -> Path:
    path = tmp_path / "kdojo_helper.py"
    path.write_text("NAME = 'helper'\n")
    return path


def test_the_compile_step_and_the_judge_agree_on_its_limit_mark_and_crash_signals() -> None:
    # compile_child.py runs in the sandbox and imports nothing of the judge's: its copies of the
    # limit mark (jail.Outcome.limited reads it) and of the signals the sandbox lets a process
    # raise on itself (kernels/emu/seccomp.py) must stay the same as ours. Read from its source:
    # importing it would replace Triton's cache key in this process.
    import ast

    from kernels.emu.seccomp import SELF_SIGNALS

    source = (Path(__file__).resolve().parents[2] / "kernels" / "triton" / "compile_child.py").read_text()
    values = {node.targets[0].id: node.value for node in ast.parse(source).body
              if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)}
    assert ast.literal_eval(values["LIMIT_MARK"]).encode() == jail.LIMIT_MARK
    assert tuple(int(getattr(signal, e.attr)) for e in values["SELF_SIGNALS"].elts) == SELF_SIGNALS
