"""Checks every lesson's two texts share: each in its own language, of lesson
length, and stamped after its last change (both translations kept in step)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from app.content.glossary import load_glossary

REPO = Path(__file__).resolve().parents[2]
HANGUL = re.compile(r"[\uac00-\ud7a3]")
LESSONS = sorted(p.parent.name for p in (REPO / "lessons").glob("*/lesson.toml"))


def test_there_are_lessons():
    assert len(LESSONS) >= 5


@pytest.mark.parametrize("folder", LESSONS)
def test_texts_are_in_their_language_and_of_lesson_length(kit, folder):
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    assert not HANGUL.search(en.body + en.meta["title"] + en.meta["summary"])
    # Korean prose has more Hangul syllables than its English twin has words.
    assert len(HANGUL.findall(ko.body)) > en.words, "ko.md should be written in Korean"
    assert HANGUL.search(ko.meta["title"] + ko.meta["summary"])
    assert 800 <= en.words <= 1500, f"en.md prose has {en.words} words"


@pytest.mark.parametrize("folder", LESSONS)
def test_translation_stamps_are_current(kit, folder):
    stamps = kit.read_lesson_toml(folder).get("translation")
    assert isinstance(stamps, dict), f"{folder}/lesson.toml: no [translation] stamp"
    for lang in kit.LANGS:
        assert stamps.get(lang) == kit.file_stamp(kit.lesson_dir(folder) / f"{lang}.md"), \
            f"{folder}/{lang}.md changed since it was stamped: update both texts, then re-stamp"


# --- Texts that speak to a learner alone (#28) ------------------------------------------------
# A learner reads a lesson in the browser and has only their own GPU, `nvcc`, `ncu` and `kdojo`:
# a path into this repository, a script of ours or a story of how a figure changed over time
# means nothing to them.

EXERCISE_TEXTS = sorted(
    p for p in (Path(__file__).resolve().parents[2] / "lessons").glob("*/exercises/*/instructions.*.md"))
LESSON_TEXTS = sorted(
    p for p in (Path(__file__).resolve().parents[2] / "lessons").glob("*/*.md"))

REPOSITORY_WORDS = re.compile(
    r"(?<![\w.-])(?:bench|tests|kernels|app|lessons|docs|solutions|exercises)/"  # our folders
    r"|\bexercise\.toml\b|\breference\.py\b"
    r"|\b[\w-]+\.py\b"  # any Python script name
    r"|@-D")  # the benchmark scripts' per-variant compiler switches
HISTORY_WORDS = re.compile(
    r"\blater run\b|\bfirst version\b|\bfirst reference\b|\breference now\b|\bThe reference now\b"
    r"|\bsame session\b|\bsession\b|\bprevious (?:run|reference|version)\b"
    r"|처음 (?:참조|reference)|처음 측정|첫 버전|지금의 (?:참조|reference)"
    r"|나중(?:에)? ?(?:실행|잰|따로|한 번 더)",
    re.I)
_CODE_OR_MATH = re.compile(r"^```.*?^```|`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]+\$", re.S | re.M)


def _prose(text: str) -> str:
    """The text a reader sees as prose: fenced code, inline code and math taken out."""
    return _CODE_OR_MATH.sub(" ", text)


def _rel(path: Path) -> str:
    return str(path.relative_to(path.parents[3] if "exercises" in path.parts else path.parents[1]))


@pytest.mark.parametrize("path", LESSON_TEXTS + EXERCISE_TEXTS, ids=_rel)
def test_texts_name_no_repository_path_or_script(path):
    text = re.sub(r"https?://\S+", " ", path.read_text(encoding="utf-8"))  # a web address is no repository path
    found = sorted({m.group(0) for m in REPOSITORY_WORDS.finditer(text)})
    assert not found, f"{path}: a learner cannot open {found}; show a result or a command they can run"


@pytest.mark.parametrize("path", LESSON_TEXTS + EXERCISE_TEXTS, ids=_rel)
def test_texts_tell_results_not_their_history(path):
    found = sorted({m.group(0) for m in HISTORY_WORDS.finditer(path.read_text(encoding="utf-8"))})
    assert not found, f"{path}: {found} tells how the lesson was made; state the current result"


# The glossary (lessons/glossary.toml, shown at /glossary): one Korean term per concept.
# Its `avoid` spellings, and the numbered forms no table can list ("lesson 4", "4강").
GLOSSARY_FORBIDDEN_KO = re.compile("|".join(
    [r"\blesson\s*\d", r"참조(?!하)", r"(?<![\d.])\d{1,2}강(?=[의에은는과와을를이가\s,.)]|$)"]
    + [rf"\b{re.escape(a)}\b" if a.isascii() else re.escape(a)
       for term in load_glossary(REPO / "lessons") for a in term.avoid]), re.I)


@pytest.mark.parametrize("folder", LESSONS)
def test_korean_prose_uses_the_glossary_terms(kit, folder):
    paths = [kit.lesson_dir(folder) / "ko.md", *sorted(kit.lesson_dir(folder).glob("exercises/*/instructions.ko.md"))]
    for path in paths:
        found = sorted({m.group(0) for m in GLOSSARY_FORBIDDEN_KO.finditer(_prose(path.read_text(encoding="utf-8")))})
        assert not found, f"{path}: {found}: use the glossary's Korean term (참고 풀이, 런치 구성, 레슨 N)"
    for spec in sorted(kit.lesson_dir(folder).glob("exercises/*/exercise.toml")):  # the hints a learner reveals
        hints = " ".join(tomllib.loads(spec.read_text(encoding="utf-8")).get("hints", {}).get("ko", []))
        found = sorted({m.group(0) for m in GLOSSARY_FORBIDDEN_KO.finditer(_prose(hints))}
                       | set(ENGLISH_TERMS.findall(re.sub(r"`[^`]*`", "", hints))))
        assert not found, f"{spec}: Korean hints: {found}: use the glossary's Korean term"


# English names of concepts the glossary gives a Korean term (outside code, in Korean hints)
ENGLISH_TERMS = re.compile(r"(?<![A-Za-z_])(?:threads?|warps?|lanes?|grid|registers?|shuffles?|shared memory)(?![A-Za-z_])")


def test_the_glossary_names_each_concept_once_and_the_lesson_that_teaches_it():
    terms = load_glossary(REPO / "lessons")
    lessons = {(REPO / "lessons" / f / "lesson.toml").read_text(encoding="utf-8").split('id = "', 1)[1].split('"', 1)[0]
               for f in LESSONS}
    assert len(terms) >= 15
    assert all(term.lesson in lessons for term in terms), [t.lesson for t in terms if t.lesson not in lessons]
    korean = [term.ko for term in terms]
    assert len(set(korean)) == len(korean), "one Korean term per concept"
    assert all(HANGUL.search(term.meaning["ko"]) and not HANGUL.search(term.meaning["en"]) for term in terms)


@pytest.mark.parametrize("path", LESSON_TEXTS + EXERCISE_TEXTS, ids=_rel)
def test_powers_are_written_as_math(path):
    raw = re.findall(r"\b\d+\^\{?\d+\}?", _prose(path.read_text(encoding="utf-8")))
    assert not raw, f"{path}: {raw}: write a power as KaTeX, e.g. $2^{{28}}$"


@pytest.mark.parametrize("path", LESSON_TEXTS, ids=_rel)
def test_table_headers_hold_no_code(path):
    """Inline code in a table header cannot wrap and breaks mid-word on a phone."""
    lines = path.read_text(encoding="utf-8").splitlines()
    headers = [a for a, b in zip(lines, lines[1:]) if a.startswith("|") and re.match(r"^\|[ :|-]+\|$", b)]
    assert not [h for h in headers if "`" in h], f"{path}: code in a table header"


FURTHER_READING = {"en": "## Further reading", "ko": "## 더 읽을거리"}


@pytest.mark.parametrize("folder", LESSONS)
def test_every_lesson_ends_with_further_reading_in_both_languages(kit, folder):
    links = {}
    for lang in kit.LANGS:
        body = kit.read_text(folder, lang).body
        head = FURTHER_READING[lang]
        assert head in body, f"{folder}/{lang}.md: no '{head}' section"
        section = body[body.index(head) + len(head):]
        assert not re.search(r"^## ", section, re.M), f"{folder}/{lang}.md: '{head}' must be the last section"
        items = re.findall(r"^- .*\]\((https://[^)\s]+)\)", section, re.M)
        assert 2 <= len(items) <= 6, f"{folder}/{lang}.md: {len(items)} readings (want 2-6, each a link)"
        links[lang] = items
    assert links["ko"] == links["en"], f"{folder}: both languages list the same readings in the same order"


def _order(kit, folder):
    return kit.read_lesson_toml(folder)["order"]


@pytest.mark.parametrize("folder", LESSONS)
def test_prerequisites_are_the_lessons_the_text_builds_on(kit, folder):
    """Every earlier lesson a text points to is reachable through `prerequisites`, and every
    direct prerequisite is one the text points to: "Before this lesson" names what is used."""
    by_id = {kit.read_lesson_toml(f)["id"]: f for f in LESSONS}
    by_order = {_order(kit, f): f for f in LESSONS}
    direct = kit.read_lesson_toml(folder)["prerequisites"]
    closure, todo = set(), list(direct)
    while todo:
        lesson_id = todo.pop()
        if lesson_id not in closure:
            closure.add(lesson_id)
            todo.extend(kit.read_lesson_toml(by_id[lesson_id])["prerequisites"])
    own = _order(kit, folder)
    for lang, pattern in (("en", r"[Ll]essons? (\d{1,2})(?!\d)"), ("ko", r"레슨 (\d{1,2})(?!\d)")):
        cited = {int(n) for n in re.findall(pattern, kit.read_text(folder, lang).body)}
        earlier = {by_order[n] for n in cited if n < own and n in by_order}
        ids = {kit.read_lesson_toml(f)["id"] for f in earlier}
        assert ids <= closure, f"{folder}/{lang}.md builds on {sorted(ids - closure)}: not in its prerequisites"
        missing = [p for p in direct if p not in ids]
        assert not missing, f"{folder}/{lang}.md: prerequisite {missing} is never pointed to in the text"
