"""Hostile submissions against the emulator with every source check bypassed.

Each attack in emu_attacks/ is judged by the real pipeline and the real
sandbox, but with NVRTC and the emulator's source policy replaced by a pass
and the checks on the preprocessed file (kernels/emu/preprocessed.py) replaced
by a pass (a monkeypatch in this test process: nothing a submission or a job
document can switch on). Containment must hold anyway: the verdict is the expected
one, the host's content (a marker file made here) is nowhere in the result,
the wall time and the peak memory of every child stay bounded, and a correct
kernel is judged normally afterwards by the same backend.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import multiprocessing
import os
import platform
import resource
import socket
import time
import uuid
from pathlib import Path

import pytest

from kernels import pipeline
from kernels.languages import cuda as cuda_language
from kernels.exercises import find_exercise
from kernels.compile import CompileResult
from kernels.constants import read_constants
from kernels.emu import target as emu_backend
from kernels.emu import jail, launcher
from kernels.targets.base import BuildError
from kernels.emu.target import EmuTarget
from kernels.spec import Limits

ATTACKS = Path(__file__).resolve().parent / "emu_attacks"
CORRECT = Path(__file__).resolve().parents[2] / "lessons/02-reduction/exercises/block_sum/solutions/correct/warp_shuffle.cu"
WALL_S = 20.0
PEAK_BYTES = 2.5e9


@pytest.fixture
def exercise():
    ex = find_exercise("reduction.block_sum")
    return dataclasses.replace(ex, limits=Limits(compile_s=15, run_s=4, bench_s=5))


@pytest.fixture
def backend():
    return EmuTarget()


@pytest.fixture
def secret(tmp_path_factory):
    """A host file with a random secret: no result may ever contain it."""
    path = Path("/tmp") / f"kdojo-secret-{uuid.uuid4().hex}"
    text = f"SECRET-{uuid.uuid4().hex}"
    path.write_text(text + "\n")
    yield path, text
    path.unlink(missing_ok=True)


def _bypass_checks(mp: pytest.MonkeyPatch, keep_preprocessed: bool = False, keep_objects: bool = False,
                   keep_poison: bool = False) -> None:
    def compiled_ok(source, exercise, arch=None):
        constants, _, _ = read_constants(source, exercise)
        return CompileResult("ok", 0.0, constants=constants)

    mp.setattr(cuda_language, "compile_submission", compiled_ok)  # NVRTC's checks, for the CUDA language
    mp.setattr(emu_backend, "prepare", lambda source: source)
    if not keep_poison:
        # g++'s own refusal of asm and no_sanitize in the learner's code (kernels/emu/launcher.py),
        # and the runtime's unchecked macros undefined for it: bypassed, as a source check.
        mp.setattr(launcher, "POISONED", ())
        mp.setattr(launcher, "RUNTIME_MACROS_UNDEFINED", ())
    if not keep_preprocessed:
        mp.setattr(emu_backend.preprocessed, "check", lambda text, runtime_dir: None)
    if not keep_objects:
        # The wall on the built object (kernels/emu/objcheck.py) is bypassed too unless a
        # test is about it: the attacks below must meet the sandbox itself.
        mp.setattr(emu_backend.toolchain, "_check_objects", lambda work, tu_text, kernels: None)


def judge(exercise, backend, source: str, bypass: bool = True, keep_preprocessed: bool = False,
          keep_objects: bool = False, keep_poison: bool = False) -> tuple[dict, float]:
    """Judge `source` (every source check bypassed by default) in a forked process of its own,
    so the peak memory of the processes it started (`_peaks`, read by assert_contained) is this
    judgement's alone: getrusage(RUSAGE_CHILDREN) is the largest child a process ever waited
    for, and under pytest-xdist a worker has judged other tests' kernels (a lesson's
    benchmark-size profile, a browser) before this one."""
    started = time.monotonic()
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def attempt() -> None:
        result = _run(exercise, backend, source, bypass, keep_preprocessed, keep_objects, keep_poison)
        send.send((json.loads(json.dumps(result)), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024))

    proc = context.Process(target=attempt)
    proc.start()
    result, peak = receive.recv()
    proc.join()
    _peaks.append(peak)
    return result, time.monotonic() - started


_peaks: list[int] = []


def _run(exercise, backend, source: str, bypass: bool, keep_preprocessed: bool, keep_objects: bool,
         keep_poison: bool) -> dict:
    with pytest.MonkeyPatch.context() as mp:
        if bypass:
            _bypass_checks(mp, keep_preprocessed, keep_objects, keep_poison)
        result = pipeline.run_pipeline(exercise, source, backend, bench=False, seed=3, emit=lambda event: None)
    gc.collect()  # the program's handle (and its processes) go with it, as when a job process ends
    return result


def attack(name: str, secret_path: Path | None = None, **defines: int) -> str:
    text = (ATTACKS / name).read_text()
    if secret_path is not None:
        text = text.replace("@MARKER@", str(secret_path))
    return "".join(f"#define {k} {v}\n" for k, v in defines.items()) + text


def assert_contained(result: dict, wall_s: float, secret_text: str, exercise, backend) -> None:
    assert secret_text not in json.dumps(result), "host content in the result"
    assert result["verdict"] not in ("accepted", "internal_error"), result["message"]
    assert wall_s < WALL_S, f"took {wall_s:.1f} s"
    peak = _peaks[-1]  # the processes this result's judgement started (judge() forks for each)
    assert peak < PEAK_BYTES, f"a child reached {peak / 1e9:.2f} GB"
    after, _ = judge(exercise, backend, CORRECT.read_text(), bypass=False)
    assert after["verdict"] == "accepted", after["message"]


def outputs(result: dict) -> str:
    return "\n".join(t.get("output") or "" for t in result["tests"])


@pytest.mark.parametrize("name, verdict", [
    ("ctor_before_main.cu", "rejected"),
    ("fork_bomb.cu", "rejected"),
    ("socket.cu", "rejected"),
    ("raw_syscall_instruction.cu", "rejected"),
    ("sigkill_self.cu", "rejected"),
    ("stdout_garbage.cu", "runtime_error"),
])
def test_forbidden_system_calls_end_the_program(exercise, backend, secret, name, verdict):
    result, wall = judge(exercise, backend, attack(name, secret[0]))
    assert result["verdict"] == verdict, result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("status", [137, 152, 159, 168, 137 + 256, -119])
def test_an_exit_status_cannot_pass_for_a_signal(exercise, backend, secret, status):
    # bubblewrap reports death by signal N as 128 + N: exit(137) would read as a SIGKILL
    # we did not send (re-run, then internal_error), 152 as SIGXCPU, 159 as SIGSYS, 168 as
    # signal 40 (which Python could not name: an exception, internal_error).
    # The filter kills a program that exits with 128 or more (the kernel keeps the low byte).
    result, wall = judge(exercise, backend, attack("exit_as_sigkill.cu", STATUS=status))
    assert result["verdict"] == "rejected", result["message"]
    assert "exit status above 127" in result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_a_program_that_cannot_be_mapped_is_the_learners_runtime_error(exercise, backend, secret):
    # 1.6 GB of .bss: past the program's RLIMIT_AS, so execve fails after its point of
    # no return; the kernel kills it with SIGSEGV (not a SIGKILL we would take for ours).
    result, wall = judge(exercise, backend, attack("huge_bss.cu", SIZE_MB=1600))
    assert result["verdict"] == "runtime_error", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_an_unnamed_signal_is_described_not_raised():
    from kernels.emu.process import _describe_exit

    # SIGRTMIN + 6 has no name in Python's signal.Signals: it raised ValueError (our
    # internal_error). bubblewrap's 128 + 40 from exit(168) reached it before the filter.
    crash = _describe_exit(-40, "")
    assert (crash.kind, crash.message) == ("runtime_error", "the program was killed by signal 40")


@pytest.mark.parametrize("status", [1, 3, 96, 97])
def test_a_small_exit_status_is_the_learners_runtime_error(exercise, backend, status):
    # 97 was the runtime's own "forbidden system call" exit: `_exit(97)` from a kernel read as
    # `rejected`. Only the kernel's SIGSYS is a refused call now; every status is the program's.
    # 1 is also bubblewrap's status when it cannot start the program (the machine's fault):
    # the program ran, so bubblewrap's JSON status has its exit code, and it stays the learner's.
    result, _ = judge(exercise, backend, attack("exit_as_sigkill.cu", STATUS=status))
    assert result["verdict"] == "runtime_error", result["message"]
    assert f"status {status}" in result["message"]


def test_replaced_libc_cannot_open_host_files(exercise, backend, secret):
    result, wall = judge(exercise, backend, attack("replace_libc.cu", secret[0]))
    assert result["verdict"] == "wrong_answer", result["message"]
    assert "fd=-1" in json.dumps(result)  # open() was refused by the outer filter
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("name", ["incbin_host_file.cu", "include_host_file.cu", "include_dev_zero.cu"])
def test_the_compiler_sees_no_host_files(exercise, backend, secret, name):
    result, wall = judge(exercise, backend, attack(name, secret[0]))
    assert result["verdict"] == "compile_error", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_the_compiler_sees_the_toolchain_not_all_of_usr_lib(exercise, backend, secret):
    # /usr/lib/os-release printed the host's distribution before (all of /usr/lib was bound).
    result, wall = judge(exercise, backend, attack("incbin_usr_lib.cu"))
    assert result["verdict"] == "compile_error", result["message"]
    assert "NAME=" not in json.dumps(result)
    assert_contained(result, wall, secret[1], exercise, backend)


def test_a_memory_bomb_in_the_compiler_stops_at_its_limit(exercise, backend, secret):
    # (test_a_compile_bomb_is_a_bounded_compile_error's macros pass `1,` through
    # non-variadic macros: g++ refuses them at once, a compile_error without a bomb.)
    result, wall = judge(exercise, backend, attack("compile_memory_bomb.cu"))
    assert result["verdict"] == "compile_error", result["message"]
    assert "ran past its 2 GB" in result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_threads_are_bounded(exercise, backend, secret):
    if not jail.mode().as_nobody and jail.os.geteuid() == 0:
        pytest.skip("bubblewrap as root: RLIMIT_NPROC does not bind (cgroup pids.max would)")
    result, wall = judge(exercise, backend, attack("thread_bomb.cu"))
    made = [int(line.split("=")[1]) for line in outputs(result).splitlines() if line.startswith("threads=")]
    # RLIMIT_NPROC: uid 65534's tasks when the program started plus jail.PROGRAM_TASKS.
    assert made and max(made) < 100
    assert_contained(result, wall, secret[1], exercise, backend)


def test_memory_is_bounded(exercise, backend, secret):
    # Touching 2 GB takes seconds on a busy machine: a longer case limit, still under WALL_S.
    slow = dataclasses.replace(exercise, limits=Limits(compile_s=15, run_s=12, bench_s=5))
    result, wall = judge(slow, backend, attack("malloc_20gb.cu"))
    got = [int(line.split("=")[1]) for line in outputs(result).splitlines() if line.startswith("MB=")]
    assert got and max(got) * (1 << 20) <= jail.program_memory_bytes("fast")
    assert result["verdict"] == "wrong_answer", result["message"]  # it handled the failed malloc
    assert_contained(result, wall, secret[1], exercise, backend)


def test_running_out_of_our_memory_limit_is_memory_limit_exceeded(exercise, backend, secret):
    slow = dataclasses.replace(exercise, limits=Limits(compile_s=15, run_s=12, bench_s=5))
    result, wall = judge(slow, backend, attack("malloc_then_crash.cu"))
    assert result["verdict"] == "memory_limit_exceeded", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("huge", [0, 1])
def test_a_forged_answer_is_the_learners_runtime_error(exercise, backend, secret, huge):
    result, wall = judge(exercise, backend, attack("forged_response.cu", HUGE=huge))
    assert result["verdict"] == "runtime_error", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_forged_stderr_reports_decide_nothing(exercise, backend, secret):
    result, wall = judge(exercise, backend, attack("stderr_forgery.cu"))
    assert result["verdict"] == "wrong_answer", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("report", range(5))
def test_a_forged_fault_report_is_data_not_code(exercise, backend, secret, report):
    # Each raised in the judge's parser once (a 5,000-digit int(), int("-0x5")): internal_error.
    result, wall = judge(exercise, backend, attack("forged_fault_report.cu", REPORT=report))
    assert result["verdict"] == "runtime_error", result["message"]
    assert "invalid memory access" in json.dumps(result) or "segmentation fault" in result["message"]
    assert "99999" not in result["message"] and "\x1b" not in json.dumps(result)
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("which, says", [
    (1, ".init_array"), (2, ".init_array"), (3, "'write'"), (4, "'sigaction'"), (5, "'_Znwm'"),
    (6, "'syscall'"), (7, ".init_array"), (8, "'_ZSt9terminatev'"), (9, ".fini_array"), (10, ".kdojo_hidden"),
])
def test_the_built_object_is_checked_not_its_spelling(exercise, backend, secret, which, says):
    # Source and preprocessed-file checks bypassed: digraph attributes, extern "C" definitions,
    # leaving the learner's namespace, asm. What g++ built is refused before anything runs.
    result, wall = judge(exercise, backend, attack("object_wall.cu", WHICH=which), keep_objects=True)
    assert result["verdict"] == "compile_error", result["message"]
    assert says in result["message"] and "\n" not in result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("which", range(1, 9))
def test_a_function_built_without_the_memory_checks_is_refused(exercise, backend, secret, which):
    # Every source check bypassed, g++'s poisoned names too: a helper compiled without the check
    # program's instrumentation read past its shared array unseen by any build. The object says so.
    result, wall = judge(exercise, backend, attack("unsanitized.cu", WHICH=which), keep_objects=True)
    assert result["verdict"] == "compile_error", result["message"]
    assert "without the memory checks" in result["message"] and "peek" in result["message"], result["message"]
    assert "\n" not in result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("which", [1, 4, 6, 7])
def test_the_compiler_refuses_the_names_that_turn_checks_off(exercise, backend, which):
    # The text checks and the object wall bypassed: g++'s poisoned names (and the runtime's
    # unchecked macro, undefined for the learner) end it at the compile.
    result, _ = judge(exercise, backend, attack("unsanitized.cu", WHICH=which), keep_poison=True)
    assert result["verdict"] == "compile_error", result["message"]
    log = result["compile"]["log"]
    assert ("attempt to use poisoned" if which != 6 else "'KDOJO_UNCHECKED' does not name a type") in log, log


@pytest.mark.parametrize("bypass", [False, True])
def test_static_shared_memory_past_a_gpus_48_kb_is_refused(exercise, backend, secret, bypass):
    # 240 KB was accepted on the emulator; NVRTC refuses over 48 KB for a GPU. Bypassed, the
    # source rewrite does not pad or name the array: the check build's shared section holds it.
    result, wall = judge(exercise, backend, attack("static_shared_size.cu", SIZE=61440), bypass=bypass,
                         keep_objects=True)
    assert result["verdict"] == "compile_error", result["message"]
    assert "static shared memory" in result["message"] and "49152" in result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("bypass", [False, True])
def test_static_shared_memory_is_counted_per_kernel(exercise, backend, secret, bypass):
    # Two 32 KB arrays, each under the limit, were accepted; a GPU adds a kernel's statics up.
    result, wall = judge(exercise, backend, attack("static_shared_total.cu", A=8192, B=8192), bypass=bypass,
                         keep_objects=True)
    assert result["verdict"] == "compile_error", result["message"]
    assert "shared" in result["message"] and "49152" in result["message"], result["message"]
    if not bypass:
        assert "'block_sum' uses too much shared data" in result["message"], result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_48_kb_of_static_shared_memory_in_two_arrays_is_allowed(exercise, backend):
    result, _ = judge(exercise, backend, attack("static_shared_total.cu", A=8192, B=4096), bypass=False)
    assert result["verdict"] == "wrong_answer", result["message"]


def test_exactly_48_kb_of_static_shared_memory_is_allowed(exercise, backend):
    result, _ = judge(exercise, backend, attack("static_shared_size.cu", SIZE=12288), bypass=False)
    assert result["verdict"] == "wrong_answer", result["message"]


def test_the_programs_alive_at_once_share_the_submissions_memory(exercise, backend):
    # The profiler's program was started beside the fast and checked ones, each with its own
    # share of KDOJO_EMU_MEMORY_MB: 3.03 GB of peak for a 2 GB setting. Now the fast one ends
    # before the profiler's starts, and the address-space limits alive at once add up to it.
    source = CORRECT.read_text()
    constants, _, _ = read_constants(source, exercise)
    program = backend.build(exercise, source, CompileResult("ok", 0.0, constants=constants))
    handle = program.handle
    try:
        total = jail.program_memory_bytes("fast") + jail.program_memory_bytes("check")
        for variant in ("fast", "check", "profile", "fast", "profile"):
            process = handle.profile_process(5) if variant == "profile" else handle.process(variant, 5)
            assert process.alive
            alive = [p for p in handle.processes.values() if p.alive]
            assert sum(p.memory_bytes for p in alive) <= total, [(p.program.name, p.memory_bytes) for p in alive]
    finally:
        handle.close()


@pytest.mark.parametrize("trick", [0, 1])
def test_a_kernel_cannot_tell_the_checked_build_from_the_fast_one(exercise, backend, trick):
    # KDOJO_CHECK and __SANITIZE_THREAD__ told the builds apart: a shared-memory overrun under
    # `#ifndef` was never in the checked build and was accepted. Now the read is in both.
    result, _ = judge(exercise, backend, attack("unchecked_only.cu", TRICK=trick), bypass=False)
    assert result["verdict"] == "runtime_error", result["message"]
    assert "out-of-bounds shared memory" in result["message"], result["message"]


def test_sleeping_ends_at_the_case_limit(exercise, backend, secret):
    result, wall = judge(exercise, backend, attack("sleep_per_case.cu"))
    assert result["verdict"] == "time_limit_exceeded", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("spin", [0, 1])
def test_sleeping_just_under_every_case_limit_ends_at_the_budget(exercise, backend, secret, spin, monkeypatch):
    # 3 s of sleep passes each case's 4 s wall clock, and the fast and checked runs of
    # 13 cases would take 78 s: the submission's budget (7 s here, 16 by default) ends it.
    # (With the exercise's own 10 s a case, 13 cases took 221 s before the budget.)
    monkeypatch.setenv(emu_backend.BUDGET_ENV, "7")
    result, wall = judge(exercise, backend, attack("sleep_just_under.cu", SLEEP_S=3, SPIN=spin))
    assert result["verdict"] == "time_limit_exceeded", result["message"]
    assert "budget" in result["message"]
    assert wall < emu_backend.budget_s() + 2, f"took {wall:.1f} s"
    assert_contained(result, wall, secret[1], exercise, backend)


def test_the_emulators_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(emu_backend.BUDGET_ENV, raising=False)
    assert emu_backend.budget_s() == emu_backend.DEFAULT_BUDGET_S == 16.0
    monkeypatch.setenv(emu_backend.BUDGET_ENV, "30")
    assert emu_backend.budget_s() == 30.0
    for bad in ("soon", "0", "-3"):
        monkeypatch.setenv(emu_backend.BUDGET_ENV, bad)
        with pytest.raises(ValueError, match="KDOJO_EMU_BUDGET_S"):
            emu_backend.budget_s()


def test_the_budget_is_a_submissions_not_a_tools(exercise, backend):
    # run_pipeline starts the clock; it is used by the next build only. A program our
    # own tools build directly (benches that run one program for minutes) has none.
    source = CORRECT.read_text()
    backend.start_submission(time.monotonic() - 100)  # long spent
    with pytest.raises(BuildError, match="budget was spent"):
        backend.build(exercise, source, CompileResult("ok", 0.0))
    program = backend.build(exercise, source, CompileResult("ok", 0.0))
    try:
        assert program.handle.deadline == float("inf")
    finally:
        program.handle.close()
    backend.start_submission()
    program = backend.build(exercise, source, CompileResult("ok", 0.0))
    try:
        assert 0 < program.handle.remaining_s() <= emu_backend.budget_s()
    finally:
        program.handle.close()


def test_the_symbolizer_reads_no_host_path(exercise, backend, secret, tmp_path):
    # addr2line follows a .gnu_debugaltlink the learner wrote (any path, through ..):
    # a FIFO blocked it for good on our side of the sandbox (20 s, then an exception:
    # internal_error). Jailed, it finds no such file and the crash keeps its verdict.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result, wall = judge(exercise, backend, attack("addr2line_altlink.cu", fifo))
    assert result["verdict"] == "runtime_error", result["message"]
    assert wall < 10, f"took {wall:.1f} s"
    assert_contained(result, wall, secret[1], exercise, backend)


def test_crafted_debug_info_costs_the_symbolizer_only_its_own_limits(exercise, backend, secret):
    result, wall = judge(exercise, backend, attack("addr2line_bomb.cu", DEBUG_MB=40))
    assert result["verdict"] == "runtime_error", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_a_flood_of_compile_errors_is_a_short_compile_error(exercise, backend, secret):
    # 2^24 static_assert failures, each with its instantiation chain: tens of MB of log a
    # second, all of it kept in the judge's memory before. -fmax-errors stops g++ early,
    # and only the log's head and tail are ever kept.
    result, wall = judge(exercise, backend, attack("compile_error_flood.cu"))
    assert result["verdict"] == "compile_error", result["message"]
    assert len(json.dumps(result)) < 512 * 1024
    assert wall < 10, f"took {wall:.1f} s"
    assert_contained(result, wall, secret[1], exercise, backend)


def test_the_checks_on_the_preprocessed_file_are_bounded(exercise, backend, secret):
    # NVRTC and the source policy bypassed, the checks on what g++'s preprocessor made
    # kept: a million `#pragma once` lines cost them a minute before they were capped.
    result, wall = judge(exercise, backend, attack("pragma_flood.cu"), keep_preprocessed=True)
    assert result["verdict"] in ("compile_error", "rejected"), result["message"]
    assert "larger than 1 MB" in result["message"]
    assert wall < 12, f"took {wall:.1f} s"
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("padding", [
    # comments NVRTC reads past: the rewrites of __shared__ declarations matched patterns over
    # the whole text, quadratic here (8 minutes of the job's CPU before its budget was looked at)
    "// " + "__shared__ float " * 7000 + "\n// " + "extern __shared__ " * 7000 + "\n",
    # one line of kernel declarations: __launch_bounds__ read back to the line's start each
    "".join(f"__global__ void __launch_bounds__(64) k{i}(float* p); " for i in range(3500)) + "\n",
], ids=["shared_in_comments", "launch_bounds_line"])
def test_the_source_rewrites_cost_linear_time(exercise, backend, padding):
    # With every check in place (nothing bypassed): the correct kernel after 200-250 KB of
    # such text is judged as it is alone, within the submission's budget.
    source = padding + CORRECT.read_text()
    assert len(source.encode()) < 256 * 1024
    result, _ = judge(exercise, backend, source, bypass=False)
    assert result["verdict"] == "accepted", result["message"]


def test_the_program_cannot_tell_the_hosts_name(exercise, backend, secret):
    # The release and build string leaked through uname() before, to a kernel and to code that
    # runs before the runtime's constructors alike: the outer filter now refuses the call.
    result, wall = judge(exercise, backend, attack("uname_hostname.cu"))
    text = outputs(result)
    assert "ret=-1" in text and "early: ret=-1" in text, text[:300]
    assert socket.gethostname() not in text and platform.release() not in text and platform.version() not in text
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("call, verdict", [
    ({"NR": 56, "A0": 17}, "rejected"),  # clone(SIGCHLD): a new process
    ({"NR": 58}, "rejected"),  # vfork
    ({"NR": 435}, "wrong_answer"),  # clone3: ENOSYS (its flags are out of BPF's reach)
    ({"NR": 425, "A0": 8}, "rejected"),  # io_uring_setup
    ({"NR": 319}, "rejected"),  # memfd_create
    ({"NR": 322}, "rejected"),  # execveat
    ({"NR": 101}, "rejected"),  # ptrace
    ({"NR": 311}, "rejected"),  # process_vm_writev
    ({"NR": 62, "A0": -1, "A1": 9}, "rejected"),  # kill(-1, SIGKILL)
    ({"NR": 112}, "rejected"),  # setsid
    ({"NR": 157, "A0": 4}, "wrong_answer"),  # prctl(PR_SET_DUMPABLE): EPERM
    ({"NR": 135, "A0": 4194304}, "rejected"),  # personality(ADDR_NO_RANDOMIZE)
    ({"NR": 323}, "rejected"),  # userfaultfd
    ({"NR": 37, "A0": 1}, "rejected"),  # alarm
    ({"NR": 149}, "rejected"),  # mlock
    ({"NR": 272, "A0": 536870912}, "rejected"),  # unshare(CLONE_NEWNS)
    ({"NR": 41, "A0": 1, "A1": 1}, "rejected"),  # socket(AF_UNIX)
    ({"NR": 424, "A0": 1, "A1": 9}, "rejected"),  # pidfd_send_signal
    ({"NR": 59}, "wrong_answer"),  # execve(NULL): EFAULT (nothing to exec but the program)
    ({"NR": 2}, "wrong_answer"),  # open: EPERM
])
def test_raw_system_calls_under_the_runtimes_layer(exercise, backend, secret, call, verdict):
    result, wall = judge(exercise, backend, attack("raw_syscall_menu.cu", **call))
    assert result["verdict"] == verdict, result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("which", [1, 2, 3])  # preinit_array, init_array, an ifunc resolver
def test_code_placed_before_main_by_asm_runs_under_the_filter(exercise, backend, secret, which):
    result, wall = judge(exercise, backend, attack("early_code.cu", WHICH=which))
    # An ifunc resolver runs before the C library sets up thread-local storage; in the
    # check program its instrumentation calls the runtime, which needs it, so it can crash
    # there first: the learner's runtime_error, contained all the same (asserted below).
    assert result["verdict"] in (("rejected", "runtime_error") if which == 3 else ("rejected",)), \
        result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("where", [0, 1])  # in a kernel; on the main thread before main
def test_deep_recursion_is_the_learners_runtime_error(exercise, backend, secret, where):
    result, wall = judge(exercise, backend, attack("deep_recursion.cu", WHERE=where))
    assert result["verdict"] == "runtime_error", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_endless_printf_ends_at_the_case_limit(exercise, backend, secret):
    result, wall = judge(exercise, backend, attack("printf_flood.cu"))
    assert result["verdict"] == "time_limit_exceeded", result["message"]
    assert len(json.dumps(result)) < 256 * 1024
    assert_contained(result, wall, secret[1], exercise, backend)


def test_swallowed_sigxcpu_and_sigsegv_end_at_the_case_limit(exercise, backend, secret):
    result, wall = judge(exercise, backend, attack("swallow_signals.cu"))
    assert result["verdict"] == "time_limit_exceeded", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_the_compilers_files_are_bounded(exercise, backend, secret):
    # 200 MB of initialised data: past the compiler's 64 MB a file, a compile_error
    # (it had been four such files in the host's /tmp, and a 537 MB process tree).
    result, wall = judge(exercise, backend, attack("huge_object.cu", SIZE_MB=200))
    assert result["verdict"] == "compile_error", result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


def test_a_forged_diagnostic_count_is_refused_before_it_is_read(exercise, backend, secret):
    result, wall = judge(exercise, backend, attack("forged_diagnostics.cu"))
    assert result["verdict"] == "runtime_error", result["message"]
    assert "200000 diagnostics" in result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


HOST_ONLY = '''extern "C" __global__ void block_sum(const float* in, float* out, int N) {
#ifndef __CUDA_ARCH__
    if (threadIdx.x == 0 && blockIdx.x == 0) { float s = 0; for (int i = 0; i < N; ++i) s += in[i]; out[0] = s; }
#endif
}
'''


def test_a_host_only_branch_is_dead_on_the_emulator_too(exercise, backend):
    # NVRTC's macros (__CUDA_ARCH__, __CUDACC_RTC__) are defined for g++ as well.
    result, _ = judge(exercise, backend, HOST_ONLY, bypass=False)
    assert result["verdict"] == "wrong_answer", result["message"]


def test_a_comment_splice_that_fools_the_checks_is_still_contained(exercise, backend, secret):
    # GCC ends the comment at `*\` + spaces + newline + `/`; the checks and NVRTC do not.
    # What the checks miss runs before main, under the outer filter all the same.
    source = ('/* looks like a comment *\\   \n'
              '/ extern "C" int fork(void); __attribute__((constructor(0))) static void early(void) { fork(); } /* */\n'
              'extern "C" __global__ void block_sum(const float* in, float* out, int N) { }\n')
    result, wall = judge(exercise, backend, source, bypass=False)
    assert result["verdict"] in ("rejected", "compile_error"), result["message"]
    assert_contained(result, wall, secret[1], exercise, backend)


@pytest.mark.parametrize("source", [
    "??=include \"@MARKER@\"\n",  # a trigraph for '#'
    "%:include \"@MARKER@\"\n",  # a digraph for '#'
])
def test_trigraphs_and_digraphs_reach_no_host_file(exercise, backend, secret, source):
    text = source.replace("@MARKER@", str(secret[0])) + \
        'extern "C" __global__ void block_sum(const float* in, float* out, int N) { }\n'
    for bypass in (False, True):
        result, wall = judge(exercise, backend, text, bypass=bypass)
        assert result["verdict"] in ("rejected", "compile_error", "wrong_answer"), result["message"]
        assert_contained(result, wall, secret[1], exercise, backend)


def test_cpu_time_is_per_case_not_summed(exercise, backend):
    # 13 cases of ~0.2 s of CPU each (twice for the small ones: the checked re-run):
    # more than a case's 3 s in all, well under it in each.
    roomy = dataclasses.replace(exercise, limits=Limits(compile_s=15, run_s=3, bench_s=5))
    result, _ = judge(roomy, backend, _busy_correct_kernel(), bypass=False)
    assert result["verdict"] == "accepted", result["message"]


def _busy_correct_kernel() -> str:
    """The correct solution, with thread 0 of block 0 spinning about 0.2 s of CPU first."""
    text = CORRECT.read_text()
    head, sep, rest = text.partition("block_sum(const float* in, float* out, int N)")
    body_start = rest.index("{") + 1
    # A register-only dependency chain: the same cost in the instrumented check build.
    spin = (" if (threadIdx.x == 0 && blockIdx.x == 0) { float x = 0; "
            "for (int i = 0; i < 100000000; ++i) x = x * 1.0000001f + 1e-7f; "
            "if (x == -1.0f) atomicAdd(out, 0.0f); } ")
    return head + sep + rest[:body_start] + spin + rest[body_start:]


def test_a_compile_bomb_is_a_bounded_compile_error(exercise, backend, secret):
    bomb = ('template <int N> struct B { static const int v = B<N - 1>::v + B<N - 2>::v; };\n'
            'template <> struct B<0> { static const int v = 1; };\n'
            'template <> struct B<1> { static const int v = 1; };\n'
            '#define X4(a) a a a a\n#define X16(a) X4(X4(a))\n#define X256(a) X16(X16(a))\n'
            'int big[] = { X256(X256(X256(1,))) };\n'
            'extern "C" __global__ void block_sum(const float* in, float* out, int N) { out[0] = B<40>::v; }\n')
    result, wall = judge(exercise, backend, bomb)
    assert result["verdict"] == "compile_error", result["message"]
    assert "ran past" in result["message"] or wall < WALL_S
    assert_contained(result, wall, secret[1], exercise, backend)


def test_the_judge_contains_an_attack_then_judges_a_correct_kernel(secret):
    # Through the real job processes: the splice passes the checks, the sandbox holds.
    from kernels.judge import Judge

    splice = ('/* looks like a comment *\\   \n'
              f'/ extern "C" int open(const char*, int, ...); __attribute__((constructor(0))) static void early(void) '
              f'{{ open("{secret[0]}", 0); }} /* */\n'
              'extern "C" __global__ void block_sum(const float* in, float* out, int N) { }\n')
    with Judge(backend="emu", keep_spare=False) as judge_:
        started = time.monotonic()
        attacked = judge_.run(splice, "reduction.block_sum", bench=False)
        assert time.monotonic() - started < WALL_S
        assert attacked["verdict"] in ("wrong_answer", "compile_error", "rejected"), attacked["message"]
        assert secret[1] not in json.dumps(attacked)
        correct = judge_.run(CORRECT.read_text(), "reduction.block_sum", bench=False)
        assert correct["verdict"] == "accepted", correct["message"]


def _kill_programs_from_outside(mp: pytest.MonkeyPatch, times: int) -> list[int]:
    """SIGKILL the emulated program (as the OOM killer would) in its first `times` cases."""
    import os
    import signal
    import threading

    from kernels.emu.process import ProgramProcess

    killed: list[int] = []
    original = ProgramProcess.call

    def call(self, request, timeout_s, cpu_s=None):
        if len(killed) < times:
            def kill_soon() -> None:
                for _ in range(200):
                    pid = self._program_pid()
                    if pid:
                        time.sleep(0.05)
                        os.kill(pid, signal.SIGKILL)
                        killed.append(pid)
                        return
                    time.sleep(0.01)
            threading.Thread(target=kill_soon, daemon=True).start()
        return original(self, request, timeout_s, cpu_s)

    mp.setattr(ProgramProcess, "call", call)
    return killed


def test_a_kill_we_did_not_send_is_retried(exercise, backend):
    roomy = dataclasses.replace(exercise, limits=Limits(compile_s=15, run_s=5, bench_s=5))
    with pytest.MonkeyPatch.context() as mp:
        killed = _kill_programs_from_outside(mp, times=1)
        result = pipeline.run_pipeline(roomy, _busy_correct_kernel(), backend, bench=False, seed=3,
                                       emit=lambda event: None)
    assert len(killed) == 1
    assert result["verdict"] == "accepted", result["message"]


def test_a_program_killed_twice_is_our_fault_not_the_learners(exercise, backend):
    roomy = dataclasses.replace(exercise, limits=Limits(compile_s=15, run_s=5, bench_s=5))
    with pytest.MonkeyPatch.context() as mp:
        _kill_programs_from_outside(mp, times=2)
        with pytest.raises(RuntimeError, match="did not send"):
            pipeline.run_pipeline(roomy, _busy_correct_kernel(), backend, bench=False, seed=3,
                                  emit=lambda event: None)


def test_the_program_has_only_its_three_pipes(exercise, backend, secret):
    result, wall = judge(exercise, backend, attack("inherited_fds.cu"))
    text = outputs(result)
    assert "fds checked" in text and "open fd" not in text, text[:500]
    assert_contained(result, wall, secret[1], exercise, backend)
