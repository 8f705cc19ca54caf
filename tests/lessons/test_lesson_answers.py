"""A lesson teaches the idea without printing its exercises' answer (#28): no code block of
the lesson, in either language, repeats three consecutive lines of an exercise's reference
(comments and spacing aside; lines of a few characters, such as `}` or `__syncthreads();`
alone, do not count). The lessons listed here were rewritten to pseudo-code, small
examples of their own and figures; a lesson joins the list once it holds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
CHECKED = ["07-shared-tiling", "08-histogram", "09-scan", "14-rmsnorm", "16-attention"]
RUN = 3  # consecutive lines


def _lines(code: str) -> list[str]:
    lines = (re.sub(r"\s+", " ", line.split("//")[0]).strip() for line in code.splitlines())
    return [line for line in lines if len(line) > 8]


def _runs(lines: list[str]) -> set[tuple[str, ...]]:
    return {tuple(lines[i:i + RUN]) for i in range(len(lines) - RUN + 1)}


def printed_reference(lesson: Path, text: str) -> list[tuple[str, ...]]:
    """The runs of reference lines that the text's code blocks repeat."""
    reference: set[tuple[str, ...]] = set()
    for path in lesson.glob("exercises/*/reference.cu"):
        reference |= _runs(_lines(path.read_text()))
    blocks = re.findall(r"```[^\n]*\n(.*?)```", text, re.S)
    return sorted({run for block in blocks for run in _runs(_lines(block)) if run in reference})


def test_the_check_finds_a_printed_reference(tmp_path: Path) -> None:
    exercise = tmp_path / "exercises" / "x"
    exercise.mkdir(parents=True)
    (exercise / "reference.cu").write_text(
        'extern "C" __global__ void k(float* out, int n) {\n'
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;   // the index\n"
        "    if (i < n) out[i] = 2.0f * out[i];\n}\n")
    copied = ('```cuda\nextern "C" __global__ void k(float* out, int n) {\n'
              "int i = blockIdx.x * blockDim.x + threadIdx.x;\nif (i < n)   out[i] = 2.0f * out[i];\n}\n```\n")
    assert len(printed_reference(tmp_path, "Some prose.\n\n" + copied)) == 1
    assert printed_reference(tmp_path, "```text\nout[i] ← 2 · out[i] for every i < n\n```\n") == []


@pytest.mark.parametrize("folder", CHECKED)
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_lesson_prints_no_run_of_its_reference(folder: str, lang: str) -> None:
    lesson = LESSONS / folder
    assert printed_reference(lesson, (lesson / f"{lang}.md").read_text()) == []
