"""Hostile submissions get their verdicts and leave the machine as it was:
the source checks (kernels/emu/source.py), the program's own seccomp/rlimit
layer and the outer jail, through the real judge pipeline."""

import dataclasses
import os
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from kernels.targets import TargetUnavailable
from kernels.exercises import find_exercise
from kernels.compile import CompileResult
from kernels.emu import build, jail, launcher
from kernels.emu.target import EmuTarget
from kernels.emu.objcheck import ObjectRefused
from kernels.emu.source import SourceError, prepare
from kernels.pipeline import run_pipeline
from kernels.spec import Limits
from kernels.emu.process import Crash, ProgramProcess
from tests.emu.harness import compile_source, launch, needs_gpu

SIGNATURE = 'extern "C" __global__ void block_sum(const float* in, float* out, int N)'


@pytest.fixture(scope="module")
def exercise():
    ex = find_exercise("reduction.block_sum")
    return dataclasses.replace(ex, limits=Limits(compile_s=30, run_s=3, bench_s=5))


def judge(exercise, source: str) -> dict:
    return run_pipeline(exercise, source, EmuTarget(), bench=False, seed=7, emit=lambda event: None)


@pytest.fixture
def marker(tmp_path_factory):
    path = Path("/tmp") / f"kdojo-pwned-{uuid.uuid4().hex}"
    yield path
    assert not path.exists(), "a submission wrote outside its sandbox"


def test_include_of_a_host_file_is_rejected(exercise):
    result = judge(exercise, '#include "/etc/passwd"\n' + SIGNATURE + " { }\n")
    assert result["verdict"] == "rejected"
    assert "root:" not in str(result)


def test_c_library_calls_do_not_compile_for_the_judge(exercise, marker):
    # NVRTC knows no host functions: the judge stops at compile time.
    source = SIGNATURE + f' {{ if (threadIdx.x == 0) system("touch {marker}"); }}\n'
    assert judge(exercise, source)["verdict"] == "compile_error"


def test_endless_loop_is_a_time_limit(exercise):
    result = judge(exercise, SIGNATURE + " { volatile int spin = 1; while (spin) { } }\n")
    assert result["verdict"] == "time_limit_exceeded"


# Below NVRTC, defence in depth: the host program itself refuses system calls,
# even for code that reaches a C library function.

def test_system_call_from_a_kernel_is_refused_by_the_program(marker):
    source = f'extern "C" __global__ void k(int* out) {{ out[0] = system("touch {marker}"); }}\n'
    got = launch(source, "k", 1, 1, [np.zeros(1, np.int32)])
    assert got.crash is not None and got.crash.kind == "rejected"
    assert "forbidden system call" == got.fault


def test_static_constructor_runs_inside_the_sandbox(monkeypatch, marker):
    source = (f'static int early = system("touch {marker}");\n'
              'extern "C" __global__ void k(int* out) { out[0] = early; }\n')
    # The check on the built object refuses the dynamic initializer (#27) ...
    with pytest.raises(ObjectRefused, match=r"\.init_array"):
        build.compile_programs(launcher.translation_unit(prepare(source), ["k"]), 60)
    # ... and without that check it runs under the sandbox all the same.
    monkeypatch.setattr(build, "_check_objects", lambda work, tu_text, kernels: None)
    got = launch(source + "// object check bypassed\n", "k", 1, 1, [np.zeros(1, np.int32)])
    assert got.crash is not None and got.crash.kind == "rejected"


def test_libc_names_cannot_be_replaced_by_a_submission():
    # Without C linkage the learner's `malloc` is kdojo_user::malloc, never the C library's.
    source = ('extern "C" void* malloc(unsigned long n) { return nullptr; }\n'
              'extern "C" __global__ void k(int* out) { out[threadIdx.x] = threadIdx.x; }\n')
    got = launch(source, "k", 1, 4, [np.zeros(4, np.int32)])
    assert got.fault is None and list(got.arrays[0]) == [0, 1, 2, 3]


def test_a_compile_past_its_time_leaves_no_pipe_open():
    # The killed compilers' output pipes were left to the garbage collector (an
    # unraisable ResourceWarning failed a test's teardown on the H100 machine).
    tu = launcher.translation_unit(prepare(SIGNATURE + " { }\n// past its time\n"), ["block_sum"])
    before = len(os.listdir("/proc/self/fd"))
    try:
        build.compile_programs(tu, 0.05)
    except build.CompilerLimit:  # counted while the exception (and its frames) lives
        assert len(os.listdir("/proc/self/fd")) == before
    else:
        pytest.fail("compiled within 0.05 s")


def test_functions_the_runtime_does_not_declare_do_not_link():
    tu = launcher.translation_unit(prepare('int socket(int, int, int);\nextern "C" __global__ void k(int* o) '
                                           '{ o[0] = socket(2, 1, 0); }\n'), ["k"])
    built, messages, log = build.compile_programs(tu, 60)
    assert built is None
    assert "socket" in log


@pytest.mark.parametrize("source, words", [
    ('#include "/etc/passwd"\n', "not allowed"),
    ("#include </etc/shadow>\n", "not allowed"),
    ("#define F </etc/passwd>\n#include F\n", "literally"),
    ("%:include </etc/passwd>\n", "digraph"),
    ("#include_next <cuda_fp16.h>\n", "#include_next"),
    ('#line 1 "/etc/passwd"\n', "#line"),
    ('#if __has_include("/etc/passwd")\n#endif\n', "__has_include"),
    ('_Pragma("GCC dependency \\"/etc/passwd\\"")\n', "_Pragma"),
    ('#pragma GCC dependency "/etc/passwd"\n', "#pragma GCC"),
    ('#embed "/etc/passwd"\n', "#embed"),
    ("#define P(a, b) a##b\n", "token pasting"),
    ("__attribute__((constructor)) void early() { }\n", "__attribute__"),
    ("[[gnu::constructor]] void early() { }\n", "gnu"),
    ("void* operator new(unsigned long n) { return 0; }\n", "operator new"),
    ("extern int errno_like;\n", "extern"),
    ("}\nint escaped;\n", "unbalanced"),
    ('auto s = R"(x)";\n', "raw string"),
])
def test_source_policy_refuses(source, words):
    with pytest.raises(SourceError) as err:
        prepare(source)
    assert words in err.value.message


def test_source_rewrites_keep_line_numbers():
    src = ('#include <cuda_fp16.h>\nextern "C" __global__ void k(float* o) {\n'
           '    extern __shared__ float buf[];\n    __shared__ float tile[32];\n}\n')
    out = prepare(src)
    assert out.count("\n") == src.count("\n")
    assert "cuda_fp16" not in out and 'extern "C"' not in out
    assert "g_dyn_smem" in out.splitlines()[2] and "KDOJO_SHARED_REF(tile_kdojo_" in out.splitlines()[3]


def test_unsupported_features_name_themselves():
    with pytest.raises(SourceError) as err:
        prepare("#include <cub/cub.cuh>\n")
    assert err.value.kind == "unsupported" and "needs a GPU: CUB is not emulated" in err.value.message
    # Found on g++'s preprocessed file (kernels/emu/preprocessed.py), not by prepare().
    assert needs_gpu('__device__ void f() { asm("membar.cta;"); }\n') == "inline PTX assembly (asm)"
    assert needs_gpu("__device__ long long t() { return clock64(); }\n") == "clock64"
    assert needs_gpu("__device__ unsigned s(void* p) { return (unsigned)__cvta_generic_to_shared(p); }\n") \
        == "__cvta_generic_to_shared"


def test_unsupported_features_in_a_dropped_branch_are_not_compiled():
    # What the preprocessor drops is not compiled, on a GPU either: the emulator judges the rest.
    source = ("#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
              '__device__ void fence() { asm volatile("fence.proxy.async.shared::cta;"); }\n'
              "#elif __CUDA_ARCH__ >= 1000\n"
              "__device__ void fence() { long long t = clock64(); }\n"
              "#else\n"
              "__device__ void fence() { __threadfence_block(); }\n"
              "#endif\n")
    assert "asm" in prepare(source)  # the raw checks no longer refuse it
    assert needs_gpu(source) == ""


def block_sum(fence: str) -> str:
    return (SIGNATURE + " {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (i < N) atomicAdd(out, in[i]);\n    " + fence + "\n}\n")


@pytest.mark.parametrize("source, line", [
    # behind a macro: found where the macro is used
    ('#define FENCE() asm volatile("membar.cta;")\n' + block_sum("FENCE();"), 5),
    # split by a line splice: found on the line the keyword starts
    (block_sum('as\\\nm volatile("membar.cta;");'), 4),
    # in a branch the preprocessor keeps
    ("#if __CUDA_ARCH__ >= 700\n#define FENCE() asm volatile(\"membar.cta;\")\n#endif\n"
     + block_sum("FENCE();"), 7),
], ids=["macro", "line_splice", "live_branch"])
def test_unsupported_features_hidden_from_the_raw_text_still_need_a_gpu(exercise, source, line):
    result = judge(exercise, source)
    assert (result["verdict"], result["message_code"]) == ("rejected", "needs_gpu"), result["message"]
    assert result["message"] == "this kernel needs a GPU: inline PTX assembly (asm) is not emulated"
    assert result["message_params"] == {"line": line, "feature": "inline PTX assembly (asm)"}


def test_program_runs_in_bubblewrap_under_its_seccomp_filter(tmp_path):
    program = tmp_path / "prog"
    assert jail.bwrap_works(), jail.mode().reason  # CI and dev machines: bubblewrap works
    launch_ = jail.program_launch(program, 5)
    try:
        argv = launch_.argv
        assert argv[0].endswith("bwrap") and "--unshare-all" in argv and "--cap-drop" in argv
        assert argv[argv.index("--seccomp") + 1] == str(launch_.pass_fds[0])
        assert argv[-1] == "/kdojo-program"
    finally:
        launch_.close_fds()


def _unsandboxed(monkeypatch, waived: bool):
    monkeypatch.setattr(jail, "mode", lambda: jail.Mode(False, os.geteuid() == 0, "no namespaces (test)"))
    if waived:
        monkeypatch.setenv(jail.UNSANDBOXED_ENV, "1")
    else:
        monkeypatch.delenv(jail.UNSANDBOXED_ENV, raising=False)


def test_without_bubblewrap_the_emulator_refuses_by_default(monkeypatch, exercise):
    _unsandboxed(monkeypatch, waived=False)
    backend = EmuTarget()
    assert not backend.available() and "no namespaces (test)" in backend.unavailable_reason()
    with pytest.raises(TargetUnavailable):
        backend.build(exercise, SIGNATURE + " { }\n", CompileResult("ok", 0.0))


def test_waived_sandbox_still_installs_seccomp_and_limits_from_outside(monkeypatch, marker):
    # KDOJO_EMU_UNSANDBOXED=1 (a trusted classroom): no namespaces, but the child
    # installs the same seccomp filter and rlimits before it execs the program.
    _unsandboxed(monkeypatch, waived=True)
    monkeypatch.setattr(build, "_check_objects", lambda work, tu_text, kernels: None)  # the sandbox's test
    source = (f'static int early = system("touch {marker}");\n'
              'extern "C" __global__ void k(int* out) { out[0] = early; }\n')
    got = launch(source + "// no bwrap\n", "k", 1, 1, [np.zeros(1, np.int32)])
    assert got.crash is not None and got.crash.kind == "rejected"
    plain = launch('extern "C" __global__ void k(int* out) { out[threadIdx.x] = 2 * threadIdx.x; }\n// no bwrap\n',
                   "k", 1, 3, [np.zeros(3, np.int32)])
    assert plain.fault is None and list(plain.arrays[0]) == [0, 2, 4]


def test_builds_and_runs_from_a_private_job_directory(monkeypatch, tmp_path):
    # The judge's job process has a 0700 TMPDIR; the sandbox's uid must still reach its work dir.
    private = tmp_path / "job"
    private.mkdir(mode=0o700)
    monkeypatch.setattr("tempfile.tempdir", str(private))
    source = 'extern "C" __global__ void k(int* out) { out[threadIdx.x] = 3 * threadIdx.x; }\n// private dir\n'
    got = launch(source, "k", 1, 3, [np.zeros(3, np.int32)])
    assert got.fault is None and list(got.arrays[0]) == [0, 3, 6]
    assert not (private.stat().st_mode & 0o004), "the job directory became readable by others"


# The GCC comment splice: `*\` + spaces + newline + `/` ends the comment for g++
# only. The checks on g++'s own preprocessed file see what g++ compiles.
SPLICE = "/* a comment? *\\   \n/ {hidden} /* */\n"
KERNEL = 'extern "C" __global__ void block_sum(const float* in, float* out, int N) { }\n'


@pytest.mark.parametrize("hidden, words", [
    ("__attribute__((constructor)) static void early() { }", "'constructor'"),
    ("[[gnu::constructor]] static void early() { }", "'constructor'"),
    ('_Pragma("GCC optimize(\\"O0\\")")', "#pragma GCC"),
    ('__device__ void f() { asm("int3"); }', "assembly"),
    # digraphs and other spellings of attributes (#27)
    ("<:<:gnu::constructor:>:> static void early() { }", "'constructor'"),
    ('<:<:gnu::section(".init_array"), gnu::used:>:> static int x = 1;', "'section'"),
    ("[ [gnu::destructor] ] static void late() { }", "'destructor'"),
    ("__attribute__((no_sanitize_thread)) static void f() { }", "'no_sanitize_thread'"),
    ('[[gnu::no_sanitize("thread")]] static void f() { }', "'no_sanitize'"),
    ("<:<:gnu::no_sanitize_address:>:> static void f() { }", "'no_sanitize_address'"),
    ("__declspec(selectany) __attribute__((__no_sanitize__(\"thread\"))) int y;", "'no_sanitize'"),
])
def test_what_the_raw_checks_miss_the_preprocessed_checks_see(exercise, hidden, words):
    result = judge(exercise, SPLICE.format(hidden=hidden) + KERNEL)
    assert result["verdict"] in ("compile_error", "rejected")
    assert words in result["message"], result["message"]


def test_a_spliced_include_of_a_host_file_finds_nothing(exercise, marker):
    marker.write_text("SECRET-CONTENT\n")
    try:
        # Hidden from NVRTC and kernels/includes.py (a comment to them), a real #include to g++.
        result = judge(exercise, f'/* a comment? *\\   \n/\n#include "{marker}"\n/* */\n' + KERNEL)
    finally:
        marker.unlink()
    assert result["verdict"] in ("compile_error", "rejected")
    assert "SECRET-CONTENT" not in str(result)


def test_the_emulator_settings_reach_the_job_process(monkeypatch, tmp_path):
    from kernels.sandbox import clean_env

    for name, value in ((jail.UNSANDBOXED_ENV, "1"), (jail.MEMORY_MB_ENV, "1024"), (jail.COMPILE_MB_ENV, "1536")):
        monkeypatch.setenv(name, value)
        assert clean_env(tmp_path)[name] == value


def test_the_judge_finds_the_program_inside_bubblewrap(monkeypatch):
    # Per-case CPU limits are set on the program's own pid (bubblewrap's grandchild).
    source = 'extern "C" __global__ void k(int* out) { out[0] = 1; }\n// pid\n'
    built = compile_source(source, ("k",))
    proc = ProgramProcess(built.programs["fast"], 5)
    try:
        for _ in range(100):
            pid = proc._program_pid()
            if pid:
                break
            time.sleep(0.02)
        assert pid and pid != proc.proc.pid
        assert jail.cpu_seconds(pid) is not None and jail.vm_peak_bytes(pid)
        monkeypatch.setattr(Path, "read_text", _no_children(Path.read_text))
        assert jail._children(proc.proc.pid) != []  # the /proc scan when "children" is missing
    finally:
        proc.kill()


def _no_children(read_text):
    def patched(self, *args, **kwargs):
        if self.name == "children":
            raise FileNotFoundError(self)
        return read_text(self, *args, **kwargs)
    return patched


def test_a_sandbox_that_cannot_start_the_program_is_the_machines_fault(tmp_path):
    # bubblewrap exits 1 without running the program when its own set-up fails (here a program file
    # that is not there; on a busy host, its clone refused by uid 65534's shared RLIMIT_NPROC): its
    # status then has no "exit-code", and the crash is ours (the judge starts the program afresh),
    # not the learner's runtime_error.
    assert jail.bwrap_works(), jail.mode().reason
    from kernels.emu.process import OURS
    from kernels.emu.protocol import encode_request
    proc = ProgramProcess(tmp_path / "missing.fast", 5)
    try:
        got = proc.call(encode_request([], [], False), 5.0)
    finally:
        proc.kill()
    assert isinstance(got, Crash) and (got.kind, got.name) == (OURS, "sandbox failed"), got

