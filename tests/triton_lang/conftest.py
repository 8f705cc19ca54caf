"""Triton tests need bubblewrap and an interpreter with Triton: the judge's own (after
`./dev setup`), or the one KDOJO_TRITON_PYTHON names. Without either they skip, naming why."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernels.spec_parse import load_spec
from kernels.triton import jail


@pytest.fixture
def sandbox() -> None:
    why = jail.refusal()
    if why:
        pytest.skip(why)


REPO = Path(__file__).resolve().parents[2]
SAXPY = REPO / "lessons" / "01-elementwise" / "exercises" / "saxpy"
SOFTMAX_DIR = REPO / "lessons" / "04-row-reductions" / "exercises" / "softmax"
TRITON_SAXPY = '''
[triton]
hints = { ko = ["프로그램 하나가 원소 BLOCK개를 맡습니다."], en = ["One program handles BLOCK elements."] }

[[triton.launch]]
kernel = "saxpy"
args = ["x", "y", "a", "N"]
'''


def without_triton(text: str) -> str:
    """An exercise.toml's text without its own [triton] tables (the tests bring theirs)."""
    kept, inside = [], False
    for line in text.splitlines(keepends=True):
        head = line.strip()
        if head.startswith("["):
            inside = head.startswith(("[triton]", "[triton.", "[[triton."))
        if not inside:
            kept.append(line)
    return "".join(kept)


def scratch_triton_exercise(root: Path, extra: str = TRITON_SAXPY, source: Path = SAXPY):
    """A copy of an exercise under `root` with the test's [triton] section in place of the
    exercise's own, loaded."""
    target = root / "lessons" / source.parents[1].name / "exercises" / source.name
    shutil.copytree(source, target)
    spec = target / "exercise.toml"
    spec.write_text(without_triton(spec.read_text()) + extra)
    return load_spec(spec)


@pytest.fixture(scope="session")
def saxpy_exercise(tmp_path_factory: pytest.TempPathFactory):
    return scratch_triton_exercise(tmp_path_factory.mktemp("triton-saxpy"))
