"""The lesson corpus (#30): every exercise's own sources get the verdict that
kernels/corpus.py promises them — the one rule `kdojo lessons validate` applies too —
on the emulator, and on a GPU where one is visible. One test per source, so a failure
names the file and the suite spreads over the cores.

On the emulator a GPU-only file (inline PTX, CUB …, decided from the source as the
judge decides: tests/emu/harness.py `needs_gpu`) must get exactly `rejected` with
message code `needs_gpu`; its verdict is checked on the GPU."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from kernels import corpus
from kernels.targets import emu_available
from kernels.corpus import CorpusError, Expectation, outcome, promised_verdict
from kernels.judge import Judge
from tests.emu.harness import needs_gpu

LESSONS_DIR = Path(__file__).resolve().parents[2] / "lessons"
SPECS = sorted(LESSONS_DIR.glob("*/exercises/*/exercise.toml"))

pytestmark = pytest.mark.corpus


def _sources(*kinds: str) -> Iterator[object]:
    for spec in SPECS:
        data = tomllib.loads(spec.read_text(encoding="utf-8"))
        exercise_id = data["id"]
        offered = ("cuda", "triton") if "triton" in data else ("cuda",)
        for expectation in corpus.expectations(spec.parent, offered):
            if expectation.kind not in kinds:
                continue
            where = f"{exercise_id}/{expectation.path.relative_to(spec.parent)}"
            yield pytest.param("emu", exercise_id, expectation, id=f"emu-{where}")
            yield pytest.param("cuda", exercise_id, expectation, id=f"cuda-{where}", marks=pytest.mark.gpu)


def _judge_and_check(backend: str, exercise_id: str, expectation: Expectation) -> None:
    if backend == "emu" and not emu_available()[0]:
        pytest.skip(f"emulator backend not available here: {emu_available()[1]}")
    # A judge per test, made after the budget and profiler fixtures set the environment its
    # job process inherits; no spare: nothing else runs on it.
    with Judge(LESSONS_DIR, backend=backend, keep_spare=False) as judge:
        got = corpus.judge_source(judge, exercise_id, expectation)
    gpu_only = backend == "emu" and expectation.language == "cuda" \
        and needs_gpu(expectation.path.read_text(encoding="utf-8")) != ""
    if gpu_only:
        assert got.status == "gpu_only", f"{expectation.path}: a GPU-only file got {got.verdict}: {got.message}"
        assert "this kernel needs a GPU" in got.message
        return
    assert got.status == "pass", f"{expectation.path}: {got.why or got.verdict + ': ' + got.message}"


@pytest.mark.parametrize(("backend", "exercise_id", "expectation"), list(_sources("reference", "correct")))
def test_the_reference_and_every_correct_solution_are_accepted(backend, exercise_id, expectation):
    _judge_and_check(backend, exercise_id, expectation)


@pytest.mark.parametrize(("backend", "exercise_id", "expectation"), list(_sources("starter")))
def test_the_starter_compiles_runs_and_gets_wrong_answer(backend, exercise_id, expectation):
    _judge_and_check(backend, exercise_id, expectation)


@pytest.mark.parametrize(("backend", "exercise_id", "expectation"), list(_sources("wrong")))
def test_each_wrong_solution_gets_the_verdict_it_promises(backend, exercise_id, expectation):
    _judge_and_check(backend, exercise_id, expectation)


def test_every_exercise_brings_a_reference_a_starter_and_solutions_of_both_kinds():
    assert len(SPECS) >= 30
    for spec in SPECS:
        offered = ("cuda", "triton") if "triton" in tomllib.loads(spec.read_text(encoding="utf-8")) else ("cuda",)
        for language in offered:
            kinds = [e.kind for e in corpus.expectations(spec.parent, (language,))]
            assert kinds[:2] == ["reference", "starter"], (spec.parent, language)
            least_wrong = 3 if language == "cuda" else 2
            assert kinds.count("correct") >= 1 and kinds.count("wrong") >= least_wrong, (spec.parent, language)


# --- The rule itself, on files written here ---------------------------------------------

def test_a_wrong_solution_must_get_wrong_answer_unless_its_leading_comment_promises_another(tmp_path):
    plain = tmp_path / "plain.cu"
    plain.write_text("// BUG: reads past the end\n// VERDICT: runtime_error is what the prose says\n")
    promising = tmp_path / "race.cu"
    promising.write_text("// BUG: no barrier between the phases\n// VERDICT: runtime_error\n__global__ void k() {}\n")
    late = tmp_path / "late.cu"
    late.write_text("// BUG: a late line\n__global__ void k() {}\n// VERDICT: runtime_error\n")
    assert promised_verdict(plain) == "wrong_answer"
    assert promised_verdict(promising) == "runtime_error"
    assert promised_verdict(late) == "wrong_answer", "only the leading comment counts"


@pytest.mark.parametrize("verdict", ["accepted", "internal_error", "slow"])
def test_a_wrong_solution_cannot_promise_acceptance_our_fault_or_an_unknown_verdict(tmp_path, verdict):
    path = tmp_path / "bad.cu"
    path.write_text(f"// VERDICT: {verdict}\n")
    with pytest.raises(CorpusError, match=f"VERDICT: {verdict}"):
        promised_verdict(path)


def _result(verdict: str, backend: str = "emu", compiled: bool = True, code: str = "") -> dict:
    return {"verdict": verdict, "message": f"the judge said {verdict}", "backend": backend,
            "message_code": code, "compile": {"ok": compiled}}


def test_internal_error_fails_whatever_the_source_promises(tmp_path):
    for kind, want in (("reference", "accepted"), ("wrong", "wrong_answer"), ("starter", "wrong_answer")):
        got = outcome(Expectation(tmp_path / "x.cu", kind, want), _result("internal_error"))
        assert got.status == "fail" and got.why.startswith("the judge failed")


def test_a_starter_must_compile_and_get_exactly_wrong_answer(tmp_path):
    starter = Expectation(tmp_path / "starter.cu", "starter", "wrong_answer")
    assert outcome(starter, _result("wrong_answer")).status == "pass"
    assert "accepted as it is" in outcome(starter, _result("accepted")).why
    assert "must compile, got compile_error" in outcome(starter, _result("compile_error", compiled=False)).why
    assert "get wrong_answer, got runtime_error" in outcome(starter, _result("runtime_error")).why


def test_a_wrong_solution_gets_exactly_its_promised_verdict(tmp_path):
    wrong = Expectation(tmp_path / "no_barrier.cu", "wrong", "runtime_error")
    assert outcome(wrong, _result("runtime_error")).status == "pass"
    assert "must get runtime_error, got wrong_answer" in outcome(wrong, _result("wrong_answer")).why
    assert "do not catch the bug 'no_barrier'" in outcome(wrong, _result("accepted")).why


def test_only_the_emulators_needs_gpu_answer_makes_a_source_gpu_only(tmp_path):
    correct = Expectation(tmp_path / "wgmma.cu", "correct", "accepted")
    assert outcome(correct, _result("rejected", code="needs_gpu")).status == "gpu_only"
    assert outcome(correct, _result("rejected", backend="cuda", code="needs_gpu")).status == "fail"
    assert outcome(correct, _result("rejected", code="forbidden_include")).status == "fail"


def test_each_language_brings_its_own_files_and_comment_mark(tmp_path):
    for name in ("reference.cu", "starter.cu", "reference.triton.py", "starter.triton.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "solutions" / "correct").mkdir(parents=True)
    (tmp_path / "solutions" / "wrong").mkdir(parents=True)
    (tmp_path / "solutions" / "correct" / "blocked.triton.py").write_text("")
    (tmp_path / "solutions" / "wrong" / "missing_mask.triton.py").write_text("# BUG: no mask\n# VERDICT: runtime_error\n")
    (tmp_path / "solutions" / "wrong" / "racy.cu").write_text("// VERDICT: wrong_answer\n")
    cuda_only = corpus.expectations(tmp_path)
    assert {e.language for e in cuda_only} == {"cuda"}
    assert [e.path.name for e in cuda_only] == ["reference.cu", "starter.cu", "racy.cu"]
    both = corpus.expectations(tmp_path, ("cuda", "triton"))
    triton = [(e.path.name, e.kind, e.verdict) for e in both if e.language == "triton"]
    assert triton == [("reference.triton.py", "reference", "accepted"), ("starter.triton.py", "starter", "wrong_answer"),
                      ("blocked.triton.py", "correct", "accepted"), ("missing_mask.triton.py", "wrong", "runtime_error")]
    wrong = next(e for e in both if e.path.name == "missing_mask.triton.py")
    assert "`# VERDICT: <verdict>`" in outcome(wrong, _result("wrong_answer")).why
