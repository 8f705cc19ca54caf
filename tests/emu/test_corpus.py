"""Every solution in the lessons gets its expected verdict on the emulator:
solutions/correct → accepted, solutions/wrong → anything but accepted (never
internal_error). Where a GPU is visible, both backends must agree.

GPU-only rule: a corpus file that the emulator's source check refuses as
needing a GPU (inline PTX, CUB …) is GPU-only. On emu it must get exactly
that answer — verdict `rejected`, message code `needs_gpu`, asserted below,
not skipped — and its verdict is compared on the GPU only.
"""

from pathlib import Path

import pytest

from kernels.catalog import REPO_ROOT, load_exercises
from kernels.emu.backend import EmuBackend
from kernels.emu.source import SourceError, prepare
from kernels.pipeline import run_pipeline

LESSONS = REPO_ROOT / "lessons"
CORPUS = sorted(LESSONS.glob("*/exercises/*/solutions/*/*.cu"))


def _exercise_for(path: Path):
    folder = path.parents[2]
    for ex in load_exercises(LESSONS).values():
        if Path(ex.reference_cu_path).parent == folder:
            return ex
    raise AssertionError(f"{path}: no exercise owns this folder")


def gpu_only(path: Path) -> bool:
    try:
        prepare(path.read_text())
    except SourceError as exc:
        return exc.kind == "unsupported"
    return False


def _judge(exercise, source: str, backend) -> dict:
    return run_pipeline(exercise, source, backend, bench=False, seed=11, emit=lambda event: None)


@pytest.mark.parametrize("path", CORPUS, ids=[str(p.relative_to(LESSONS)) for p in CORPUS])
def test_corpus_verdict_on_the_emulator(path):
    exercise = _exercise_for(path)
    result = _judge(exercise, path.read_text(), EmuBackend())
    assert result["verdict"] != "internal_error", result["message"]
    if gpu_only(path):
        assert result["verdict"] == "rejected" and result["message_code"] == "needs_gpu", result["message"]
        assert "this kernel needs a GPU" in result["message"]
    elif path.parent.name == "correct":
        assert result["verdict"] == "accepted", result["message"]
    else:
        assert result["verdict"] != "accepted", f"{path.name} was accepted"


@pytest.mark.gpu
@pytest.mark.parametrize("path", CORPUS, ids=[str(p.relative_to(LESSONS)) for p in CORPUS])
def test_both_backends_agree(path):
    from kernels.backends import create

    exercise = _exercise_for(path)
    if gpu_only(path):
        pytest.skip("GPU-only file (the emulator reports it as not supported)")
    source = path.read_text()
    on_gpu = _judge(exercise, source, create("cuda"))["verdict"]
    on_emu = _judge(exercise, source, EmuBackend())["verdict"]
    assert on_gpu == on_emu, f"cuda: {on_gpu}, emu: {on_emu}"


def test_the_corpus_is_not_empty():
    assert len(CORPUS) >= 10
