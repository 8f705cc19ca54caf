"""The string tables: Korean and English carry the same keys, and every key a template uses exists."""

from __future__ import annotations

import re
import string
from pathlib import Path

from app.i18n import js_strings, translate
from app.i18n_strings import EN, KO

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
JS = Path(__file__).resolve().parents[2] / "static" / "js"


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    assert set(KO) == set(EN)
    for key in KO:
        ko_fields = {f for _, f, _, _ in string.Formatter().parse(KO[key]) if f}
        en_fields = {f for _, f, _, _ in string.Formatter().parse(EN[key]) if f}
        assert ko_fields == en_fields, key


def test_every_key_used_by_a_template_exists() -> None:
    used: set[str] = set()
    for path in TEMPLATES.rglob("*.html"):
        used |= set(re.findall(r"""\bt\(\s*'([a-z_.]+)'""", path.read_text()))
    assert used, "no t('…') calls found"
    exact = {key for key in used if not key.endswith(".")}
    assert sorted(exact - set(KO)) == []
    # Keys built in the template ('lesson.status.' ~ lesson.status): the family must exist.
    for prefix in used - exact:
        assert any(key.startswith(prefix) for key in KO), prefix


def test_every_string_the_scripts_use_exists() -> None:
    used: set[str] = set()
    for path in JS.glob("*.js"):
        text = path.read_text()
        used |= set(re.findall(r"\bS\.([a-z_]+)\b", text))
        used |= set(re.findall(r'S\["([a-z_.]+)"\]', text))
    strings = js_strings("en")
    assert used and sorted(used - set(strings)) == []


def test_translate_formats_and_falls_back() -> None:
    assert translate("ko", "lesson.of", order=2, total=5) == "레슨 02 / 05"
    assert translate("en", "lesson.of", order=2, total=5) == "Lesson 02 of 05"
    assert translate("xx", "nav.catalog") == "레슨"
    assert translate("en", "no.such.key") == "no.such.key"
