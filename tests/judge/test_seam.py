"""The language seam (#29): targets and languages found by name, the protocol's defaults,
the compile made once and handed to the build, and the language carried by the job."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kernels import contract as result_doc, languages, targets
from kernels.exercises import find_exercise
from kernels.compile import CompileResult
from kernels.contract import STREAMED, Event
from kernels.languages import LanguageUnavailable, UnknownLanguage
from kernels.pipeline import run_pipeline
from kernels.spec_parse import load_spec
from kernels.targets.base import Target

from .conftest import BLOCK_SUM, REPO

# Every member of a target the pipeline, the worker, the benchmark or the profiler reads.
PROTOCOL = ("name", "arch", "timed", "flusher", "available", "unavailable_reason", "device_info",
            "preload", "warm", "start_submission", "prepare_profile", "learner_fault", "check_settings",
            "build", "run")
TRITON_SECTION = '''
[triton]
hints = { ko = ["블록마다 한 번 더합니다."], en = ["Add once per block."] }

[[triton.launch]]
kernel = "block_sum"
args = ["in", "out", "N"]
'''
TRITON_SOURCE = '''import triton
import triton.language as tl


@triton.jit
def block_sum(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + pid, tl.sum(tl.load(in_ptr + offs, mask=offs < n, other=0.0), axis=0))


def launch_block_sum(N):
    return {"grid": (triton.cdiv(N, 256),), "BLOCK": 256}
'''


def triton_ready() -> bool:
    """The Triton toolchain of kernels/triton/ is installed here (then its own tests judge)."""
    try:
        return importlib.util.find_spec("kernels.triton.compile") is not None \
            and importlib.util.find_spec("triton") is not None
    except ModuleNotFoundError:
        return False


def test_the_registries_name_what_they_find():
    assert targets.NAMES == ("auto", *targets.CONCRETE) and targets.CONCRETE == ("cuda", "emu")
    assert languages.NAMES == ("cuda", "triton") == result_doc.LANGUAGES
    for name in targets.CONCRETE:
        cls = targets.target_class(name)
        assert issubclass(cls, Target) and cls.name == name
        assert cls.timed is targets.timed(name)  # the supervisor's table agrees with the class
    assert targets.timed("cuda") and not targets.timed("emu") and not targets.timed(None)
    with pytest.raises(targets.TargetUnavailable, match="unknown backend 'tpu'"):
        targets.resolve("tpu")


def test_the_worker_offers_every_target():
    from kernels.worker import CONCRETE_TARGETS

    assert CONCRETE_TARGETS == targets.CONCRETE


def test_every_member_the_judge_uses_is_declared_with_a_default():
    for member in PROTOCOL:
        assert hasattr(Target, member), member
    base = Target()
    assert base.available() and base.unavailable_reason() is None and base.learner_fault(ValueError()) is None
    assert base.flusher is None and base.arch is None and base.timed is False
    for path in ("kernels/pipeline.py", "kernels/worker.py", "kernels/bench_run.py", "kernels/targets/__init__.py"):
        text = (REPO / path).read_text()
        assert not re.search(r"(hasattr|getattr)\((backend|target)\b", text), path


def test_no_kernel_module_asks_which_target_by_name():
    # `timed` says what a target can do; its name says nothing more (#29)
    pattern = re.compile(r"""(backend|target)(_name)?\s*[!=]=\s*["'](cuda|emu)["']|\.get\("backend"\)\s*[!=]=""")
    found = [f"{path.relative_to(REPO)}:{number}" for folder in ("kernels", "app")
             for path in sorted((REPO / folder).rglob("*.py")) if "triton" not in path.parts
             for number, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert found == []


def test_languages_are_found_by_name_and_suffix():
    for name in languages.NAMES:
        module = languages.get(name)
        assert module.name == name and module.title and module.suffix and module.editor_mode
        assert callable(module.compile) and callable(module.launches) and callable(module.tolerance)
        assert languages.from_filename("attempt" + module.suffix) == name
    assert languages.get("cuda").editor_mode == "cuda" and languages.get("triton").editor_mode == "python"
    assert languages.from_filename("notes.py") == "cuda"
    with pytest.raises(UnknownLanguage, match="unknown language 'fortran'"):
        languages.get("fortran")


def test_a_missing_toolchain_piece_is_unavailable_and_a_broken_one_is_ours():
    with pytest.raises(LanguageUnavailable):
        languages.part("kernels.no_such_language.compile")
    with pytest.raises(ModuleNotFoundError):  # a module that exists but imports nothing there: our bug
        languages.part("tests.judge.missing_import_fixture")


def test_triton_tolerances_override_the_check(scratch_exercise):
    spec = scratch_exercise / "exercise.toml"
    spec.write_text(spec.read_text() + TRITON_SECTION.replace("[[triton.launch]]", "atol = 0.5\n\n[[triton.launch]]"))
    exercise = load_spec(spec)
    assert languages.get("triton").tolerance(exercise) == (exercise.rtol, 0.5)
    assert languages.get("cuda").tolerance(exercise) == (exercise.rtol, exercise.atol)


def test_the_compile_result_is_built_not_compiled_again(block_sum):
    # the target builds what the language made: a result for another exercise's kernel
    # would not load if the target compiled the source itself
    from kernels.emu.target import EmuTarget

    source = (BLOCK_SUM / "reference.cu").read_text()
    compiled = languages.get("cuda").compile(source, block_sum, "emu", None)
    assert compiled.ok and compiled.language == "cuda" and compiled.artifact is None
    program = EmuTarget().build(block_sum, source, compiled)
    try:
        assert program.kernels == ("block_sum",)
    finally:
        program.handle.close()
    failed = CompileResult("compile_error", 0.0, "x", [])
    from kernels.targets.base import BuildError

    with pytest.raises(BuildError):
        EmuTarget().build(block_sum, source, failed)


def _emu() -> Target:
    ok, why = targets.emu_available()
    if not ok:
        pytest.skip(why)
    return targets.create("emu")


def test_a_language_the_exercise_does_not_offer_is_rejected(block_sum):
    doc = run_pipeline(block_sum, TRITON_SOURCE, _emu(), bench=False, seed=1, emit=lambda e: None,
                       language="triton")
    assert result_doc.validate(doc) == []
    assert (doc["verdict"], doc["message_code"], doc["language"]) == ("rejected", "language_not_offered", "triton")
    assert doc["message_params"] == {"language": "Triton", "exercise": "reduction.block_sum"}


@pytest.mark.skipif(triton_ready(), reason="Triton is installed: tests/triton_lang judges it")
def test_triton_without_its_toolchain_is_rejected_not_internal_error(scratch_exercise):
    spec = scratch_exercise / "exercise.toml"
    spec.write_text(spec.read_text() + TRITON_SECTION)
    events: list[dict] = []
    doc = run_pipeline(load_spec(spec), TRITON_SOURCE, _emu(), bench=False, seed=1, emit=events.append,
                       language="triton")
    assert result_doc.validate(doc) == []
    assert (doc["verdict"], doc["message_code"], doc["language"]) == ("rejected", "language_unavailable", "triton")
    assert doc["message_params"] == {"language": "Triton"}
    assert [e["stage"] for e in events] == ["compiling", "_compiled"]


def test_the_judge_carries_the_language(scratch_exercise):
    from kernels.judge import Judge

    _emu()
    lessons = scratch_exercise.parents[2]
    with Judge(lessons, backend="emu", keep_spare=False) as judge:
        events: list[dict] = []
        doc = judge.run((BLOCK_SUM / "reference.cu").read_text(), "reduction.block_sum", bench=False,
                        on_event=events.append)
        assert (doc["verdict"], doc["language"]) == ("accepted", "cuda")
        # the supervisor passes on the contract's public events only
        assert {e["stage"] for e in events} <= {e.value for e in STREAMED}
        assert events[0]["stage"] == Event.COMPILING and events[-1]["stage"] == Event.DONE
        refused = judge.run(TRITON_SOURCE, "reduction.block_sum", language="triton")
        assert (refused["verdict"], refused["message_code"]) == ("rejected", "language_not_offered")
        assert result_doc.validate(refused) == []
        with pytest.raises(UnknownLanguage):
            judge.run(TRITON_SOURCE, "reduction.block_sum", language="fortran")


def test_result_documents_say_the_language():
    doc = result_doc.build(exercise="a.b", backend="emu", verdict="accepted", message="ok", language="triton")
    assert doc["language"] == "triton" and result_doc.validate(doc) == []
    older = {k: v for k, v in doc.items() if k != "language"}  # stored before #29: CUDA
    assert result_doc.validate(older) == []
    assert result_doc.validate({**doc, "language": "fortran"}) == ["language must be one of cuda, triton"]
    with pytest.raises(ValueError):
        result_doc.build(exercise="a.b", backend="emu", verdict="accepted", message="ok", language="fortran")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernels", "judge", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})


def test_the_cli_takes_the_language_from_the_suffix(tmp_path: Path):
    attempt = tmp_path / "block_sum.triton.py"
    attempt.write_text(TRITON_SOURCE)
    for proc in (_cli(str(attempt), "--exercise", "reduction.block_sum"),
                 _cli(str(BLOCK_SUM / "reference.cu"), "--exercise", "reduction.block_sum", "--language", "triton")):
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert proc.stderr == "kdojo judge: reduction.block_sum is not offered in triton (it offers cuda)\n"


def test_job_documents_name_the_language(block_sum):
    from kernels.worker import _run_job

    assert find_exercise("reduction.block_sum").languages == ("cuda",)
    job = {"exercise": "reduction.block_sum", "source": TRITON_SOURCE, "language": "triton", "bench": False,
           "seed": 3}
    doc = _run_job(job, _emu(), None, lambda event: None)
    assert (doc["language"], doc["message_code"]) == ("triton", "language_not_offered")


@pytest.mark.gpu
def test_the_gpu_target_loads_the_cubin_the_language_made(block_sum):
    target = targets.create("cuda")
    source = (BLOCK_SUM / "reference.cu").read_text()
    compiled = languages.get("cuda").compile(source, block_sum, target.name, target.arch)
    assert compiled.ok and compiled.cubin
    program = target.build(block_sum, source, compiled)
    assert set(program.handle["functions"]) == {"block_sum"}


@pytest.mark.gpu
def test_a_gpu_judgement_says_its_language_and_refuses_one_not_offered():
    from kernels.judge import Judge

    with Judge(REPO / "lessons", backend="cuda", keep_spare=False) as judge:
        doc = judge.run((BLOCK_SUM / "reference.cu").read_text(), "reduction.block_sum", bench=False)
        assert (doc["verdict"], doc["language"], doc["backend"]) == ("accepted", "cuda", "cuda")
        refused = judge.run(TRITON_SOURCE, "reduction.block_sum", language="triton")
        assert (refused["verdict"], refused["message_code"]) == ("rejected", "language_not_offered")
        assert result_doc.validate(doc) == [] and result_doc.validate(refused) == []
