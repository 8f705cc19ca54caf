"""ko.md and en.md are one lesson in two languages: the same sections, the same
code (only prose is translated), each in its own language. Which terms the
Korean uses, and that each text is of lesson length, is test_lesson_texts.py's."""

from __future__ import annotations

import re

import pytest

HANGUL = re.compile(r"[\uac00-\ud7a3]")
# folder: (at least this many sections, code blocks, tabbed code blocks): what each lesson was
# written with, so that a lost section or code block shows
SHAPE = {
    "01-elementwise": (6, 2, 0), "02-reduction": (6, 2, 0), "03-warp-broadcast": (6, 2, 0),
    "04-row-reductions": (6, 2, 1), "05-gemm-epilogue": (6, 2, 1),
    "06-coalescing": (6, 4, 2), "07-shared-tiling": (6, 4, 2),
    "08-histogram": (6, 2, 0), "09-scan": (6, 3, 0),
    "10-compaction": (7, 3, 2), "11-radix-sort": (7, 3, 2),
    "12-convolution": (6, 4, 2), "13-gemv-spmv": (6, 4, 2),
    "14-rmsnorm": (7, 4, 2), "15-rope": (7, 4, 2),
    "16-attention": (5, 2, 2), "17-flash-attention": (5, 2, 2),
    "18-cross-entropy": (6, 3, 0), "19-topk": (6, 3, 0),
    "20-quant-gemv": (7, 4, 2), "21-gated-mlp": (7, 4, 2),
}
# Tabs a lesson shows side by side: its kernel and the framework version.
TAB_PAIRS = {"10-compaction": ("tab=CUDA", "tab=CuPy"), "11-radix-sort": ("tab=CUDA", "tab=CuPy")}


def test_every_lesson_has_its_shape_listed(kit):
    assert sorted(SHAPE) == sorted(p.parent.name for p in kit.LESSONS_DIR.glob("*/lesson.toml"))


@pytest.mark.parametrize("folder", SHAPE)
def test_both_languages_have_a_title_and_summary_in_their_language(kit, folder):
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    for text in (ko, en):
        for name in ("title", "summary"):
            assert isinstance(text.meta.get(name), str) and text.meta[name].strip(), \
                f"{text.path}: front matter {name}: missing or empty"
    assert HANGUL.search(ko.meta["title"]) and HANGUL.search(ko.body), f"{ko.path}: not Korean"
    assert not HANGUL.search(en.body), f"{en.path}: Korean in the English text"


@pytest.mark.parametrize("folder", SHAPE)
def test_both_languages_have_the_same_sections_and_code(kit, folder):
    sections, blocks, tabs = SHAPE[folder]
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    assert ko.headings == en.headings, "ko.md and en.md must have the same sections"
    assert len(ko.headings) >= sections
    assert len(ko.code_blocks) == len(en.code_blocks) >= blocks
    for (ko_info, ko_code), (en_info, en_code) in zip(ko.code_blocks, en.code_blocks):
        assert ko_code == en_code, "the code is shared: only prose is translated"
        # a tab's label is prose, in the page's language (#28); the block's language is not
        assert ko_info.split()[0] == en_info.split()[0], "code blocks in a different order"
        assert ("tab=" in ko_info) == ("tab=" in en_info)
    assert sum("tab=" in info for info, _ in en.code_blocks) >= tabs, "tabbed code blocks"
    for tab in TAB_PAIRS.get(folder, ()):
        assert any(tab in info for info, _ in en.code_blocks), f"{folder}: a {tab} block"


@pytest.mark.parametrize("folder", ["10-compaction", "11-radix-sort"])
def test_no_line_of_the_korean_prose_is_english(kit, folder):
    ko = kit.read_text(folder, "ko")
    prose = re.sub(r"```.*?```|`[^`]*`|\$[^$]*\$", "", ko.body, flags=re.S)
    for line in prose.splitlines():
        if re.search(r"[A-Za-z]", line) and not line.startswith(("|", "#")):
            assert HANGUL.search(line), f"{ko.path}: an English line in the Korean text: {line!r}"


@pytest.mark.parametrize("folder", ["12-convolution", "13-gemv-spmv"])
def test_the_korean_prose_has_no_english_sentence(kit, folder):
    ko = kit.read_text(folder, "ko")
    prose = re.sub(r"`[^`]*`|\$\$.*?\$\$", "", re.sub(r"^```.*?^```", "", ko.body, flags=re.S | re.M), flags=re.S)
    assert not re.search(r"\b(the|and|with|of|is)\b", prose), f"{ko.path}: an English sentence"


@pytest.mark.parametrize("folder", SHAPE)
def test_both_texts_name_every_exercise_of_the_lesson(kit, folder):
    ids = [kit.read_exercise_toml(folder, name)["id"] for name in kit.read_lesson_toml(folder)["exercises"]]
    for lang in kit.LANGS:
        body = kit.read_text(folder, lang).body
        assert all(i in body for i in ids), f"{folder}/{lang}.md: {[i for i in ids if i not in body]}"
