"""The learners' glossary (`lessons/glossary.toml`): one Korean term per concept, what it
means in both languages, and the lesson that teaches it. The lesson texts use these
terms (tests/lessons/test_lesson_texts.py); /glossary shows them."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.content.errors import LessonError

GLOSSARY_FILE = "glossary.toml"


@dataclass(frozen=True)
class Term:
    id: str
    ko: str
    en: str
    meaning: dict[str, str]  # language -> one or two sentences (inline Markdown)
    lesson: str  # the lesson id that teaches it
    avoid: tuple[str, ...] = ()  # spellings the Korean texts do not use

    def term(self, lang: str) -> str:
        return self.ko if lang == "ko" else self.en


def load_glossary(lessons_dir: Path | str) -> list[Term]:
    """The terms in file order; [] when there is no glossary. A malformed file raises
    LessonError naming the file and the field."""
    path = Path(lessons_dir) / GLOSSARY_FILE
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LessonError(path, "", f"not valid TOML: {exc}") from None
    terms = data.get("terms")
    if not isinstance(terms, list):
        raise LessonError(path, "terms", "expected a list of [[terms]] tables")
    found = [_term(path, i, item) for i, item in enumerate(terms)]
    seen: set[str] = set()
    for term in found:
        if term.id in seen:
            raise LessonError(path, "terms", f"id {term.id!r} appears twice")
        seen.add(term.id)
    return found


def _term(path: Path, index: int, item: Any) -> Term:
    where = f"terms[{index}]"
    if not isinstance(item, dict):
        raise LessonError(path, where, "expected a table")
    text = {}
    for key in ("id", "ko", "en", "lesson"):
        value = item.get(key)
        if not isinstance(value, str) or not value.strip():
            raise LessonError(path, f"{where}.{key}", "expected a non-empty string")
        text[key] = value
    meaning = item.get("meaning")
    if not isinstance(meaning, dict) or any(not isinstance(meaning.get(lang), str) or not meaning[lang].strip()
                                            for lang in ("ko", "en")):
        raise LessonError(path, f"{where}.meaning", 'expected { ko = "…", en = "…" }')
    avoid = item.get("avoid", [])
    if not isinstance(avoid, list) or not all(isinstance(a, str) and a for a in avoid):
        raise LessonError(path, f"{where}.avoid", "expected a list of strings")
    return Term(text["id"], text["ko"], text["en"], {"ko": meaning["ko"], "en": meaning["en"]},
                text["lesson"], tuple(avoid))
