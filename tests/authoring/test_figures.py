"""`kdojo lessons validate` on lesson figures (issue #28): it refuses a figure the
server would not serve, naming the file, and an image a text places wrongly."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from app.cli import main as kdojo
from app.content.figures import figure_problem
from app.settings import REPO_ROOT
from app.authoring import validate

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "lessons" / "01-add-one"
SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>t</title>{}</svg>'


def _lesson(tmp_path: Path, figures: dict[str, str], en_line: str = "", ko_line: str = "") -> Path:
    lesson = tmp_path / "lessons" / "01-add-one"
    shutil.copytree(FIXTURE, lesson)
    (lesson / "figures").mkdir()
    for name, body in figures.items():
        (lesson / "figures" / name).write_text(body)
    for lang, line in (("en", en_line), ("ko", ko_line)):
        if line:
            path = lesson / f"{lang}.md"
            path.write_text(path.read_text() + f"\n{line}\n")
    from app.content.translation import stamp

    stamp(lesson)
    return lesson


def _problems(lesson: Path, severity: str = "error") -> list[str]:
    (report,) = validate(lesson.parent, judge=False).lessons
    return [str(p) for p in report.problems if p.severity == severity]


def test_a_placed_safe_figure_validates(tmp_path: Path) -> None:
    lesson = _lesson(tmp_path, {"grid.svg": SVG.format('<rect width="4" height="4"/>')},
                     "![A grid](figures/grid.svg)", "![격자](figures/grid.svg)")
    assert _problems(lesson) == []


def test_a_scripted_svg_is_refused_by_name(tmp_path: Path) -> None:
    lesson = _lesson(tmp_path, {"evil.svg": SVG.format("<script>fetch('/api/me')</script>")},
                     "![Evil](figures/evil.svg)", "![악](figures/evil.svg)")
    problems = _problems(lesson)
    assert len(problems) == 1
    assert "01-add-one/figures/evil.svg: (file): refused: contains <script>" in problems[0]


def test_kdojo_lessons_validate_exits_1_naming_the_scripted_figure(tmp_path: Path, capsys) -> None:
    lesson = _lesson(tmp_path, {"evil.svg": SVG.format('<rect onmouseover="alert(1)"/>')},
                     "![Evil](figures/evil.svg)", "![악](figures/evil.svg)")
    assert kdojo(["lessons", "validate", str(lesson), "--no-judge"]) == 1
    out = capsys.readouterr().out
    assert "figures/evil.svg: (file): refused: <rect> has an event handler attribute 'onmouseover'" in out


@pytest.mark.parametrize(("body", "words"), [
    ('<rect width="4" height="4" onclick="alert(1)"/>', "event handler attribute 'onclick'"),
    ('<g onload="x()"/>', "event handler attribute 'onload'"),
    ('<a href="javascript:alert(1)"><text>x</text></a>', "links to 'javascript:alert(1)'"),
    ('<image xmlns:xl="http://www.w3.org/1999/xlink" xl:href="https://e.com/a.png"/>', "links to"),
    ('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>', "<foreignObject>"),
    ('<set attributeName="href" to="javascript:alert(1)"/>', "<set>"),
    ("<style>@import url(https://e.com/x.css);</style>", "<style> loads"),
])
def test_figure_problem_names_what_is_wrong(body: str, words: str) -> None:
    problem = figure_problem("x.svg", SVG.format(body).encode())
    assert problem is not None and words in problem


@pytest.mark.parametrize(("data", "words"), [
    (b'<!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>', "DOCTYPE"),
    (b'<?xml-stylesheet href="https://e.com/x.css"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>',
     "stylesheet"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>', "no viewBox"),
    (b"<html><script>x</script></html>", "root element is not <svg>"),
    (b"<svg", "not well-formed"),
    (b"\xff\xfe", "not UTF-8"),
])
def test_an_svg_that_is_not_a_plain_drawing_is_refused(data: bytes, words: str) -> None:
    problem = figure_problem("x.svg", data)
    assert problem is not None and words in problem


def test_a_png_must_be_a_png() -> None:
    assert figure_problem("x.png", b"\x89PNG\r\n\x1a\n....") is None
    assert figure_problem("x.png", b"<svg/>") == "not a PNG file"


def test_images_outside_the_figures_folder_and_missing_alt_texts_are_errors(tmp_path: Path) -> None:
    lesson = _lesson(tmp_path, {"grid.svg": SVG.format(""), "Bad Name.svg": SVG.format(""),
                                "unused.svg": SVG.format("")},
                     "![](figures/grid.svg) ![x](https://example.com/a.png)", "![격자](figures/nope.svg)")
    errors, warnings = _problems(lesson), _problems(lesson, "warning")
    assert any("figures/Bad Name.svg: (file): not served" in e for e in errors)
    assert any("en.md: image: 'figures/grid.svg' has no alt text" in e for e in errors)
    assert any("en.md: image: 'https://example.com/a.png': an image must be a file" in e for e in errors)
    assert any("ko.md: image: 'figures/nope.svg'" in e for e in errors)
    assert len(errors) == 4, errors
    assert [w for w in warnings if "unused.svg" in w and "no text places this figure" in w]


LESSONS = REPO_ROOT / "lessons"
PATTERN_TRACKS = ("memory-patterns", "llm-kernels")
PATTERN_LESSONS = [p.parent.name for p in sorted(LESSONS.glob("*/lesson.toml"))
                   if tomllib.loads(p.read_text(encoding="utf-8"))["track"] in PATTERN_TRACKS]


def test_the_pattern_tracks_have_lessons() -> None:
    assert len(PATTERN_LESSONS) >= 16, PATTERN_LESSONS


@pytest.mark.parametrize("folder", PATTERN_LESSONS)
def test_each_pattern_lesson_places_a_small_safe_figure_in_both_languages(folder: str) -> None:
    """Issue #28: each lesson of the memory-patterns and LLM-kernels tracks explains its
    pattern with a picture; the file is small, servable, and placed in both texts."""
    lesson = LESSONS / folder
    figures = sorted((lesson / "figures").glob("*.svg"))
    assert figures, f"{folder}: no figure"
    for path in figures:
        data = path.read_bytes()
        assert len(data) < 20 * 1024, f"{path.name}: {len(data)} bytes"
        assert figure_problem(path.name, data) is None
        assert b" width=" not in data.split(b">", 1)[0], "the <svg> element must scale: viewBox only"
        for lang in ("ko", "en"):
            assert f"](figures/{path.name})" in (lesson / f"{lang}.md").read_text(encoding="utf-8"), (lang, path.name)
