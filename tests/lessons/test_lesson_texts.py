"""Checks every lesson's two texts share: each in its own language, of lesson
length, and stamped after its last change (both translations kept in step)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HANGUL = re.compile(r"[\uac00-\ud7a3]")
LESSONS = sorted(p.parent.name for p in (Path(__file__).resolve().parents[2] / "lessons").glob("*/lesson.toml"))


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
