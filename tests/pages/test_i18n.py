"""The string tables: Korean and English carry the same keys, and every key a template uses exists."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from babel import Locale

from app.i18n import js_strings, translate
from app.i18n_strings import EN, KO
from kernels.contract import MESSAGE_CODES

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
JS = Path(__file__).resolve().parents[2] / "static" / "js"


def _forms(value: object) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]  # type: ignore[arg-type]


def _fields(value: object) -> set[str]:
    return {f for form in _forms(value) for _, f, _, _ in string.Formatter().parse(form) if f}


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    assert sorted(set(KO) - set(EN)) == [] and sorted(set(EN) - set(KO)) == []
    for key in KO:
        assert _fields(KO[key]) == _fields(EN[key]), key


@pytest.mark.parametrize("lang, table", [("ko", KO), ("en", EN)])
def test_plural_entries_cover_the_languages_plural_forms(lang: str, table: dict) -> None:
    """A plural entry has every CLDR category its language uses (Babel's data) and nothing else."""
    categories = set(Locale.parse(lang).plural_form.tags) | {"other"}
    for key, value in table.items():
        if isinstance(value, dict):
            assert set(value) == categories, (lang, key, sorted(categories))


def test_plural_forms_and_numbers_follow_the_language() -> None:
    assert translate("en", "catalog.exercises", n=1) == "1 exercise"
    assert translate("en", "catalog.exercises", n=3) == "3 exercises"
    assert translate("ko", "catalog.exercises", n=1) == "연습 1개"
    from app.i18n import format_number

    assert format_number("en", 12345) == "12,345" and format_number("ko", 1234.5) == "1,234.5"


def test_every_judge_message_code_and_fault_name_has_both_languages() -> None:
    for code in MESSAGE_CODES:
        assert f"js.msg.{code}" in KO and f"js.msg.{code}" in EN, code
    for fault in ("out-of-bounds read", "out-of-bounds write", "data race", "deadlock", "time limit exceeded"):
        assert f"js.fault.{fault}" in KO, fault
    # no English left in the Korean judge messages (ASCII words besides placeholders, CUDA's
    # identifiers such as __syncthreads(), extern __shared__ or this_grid().sync(), directives
    # such as #pragma unroll, headers, and units)
    code = (r"\{[a-z_]+\}|__\w+|\bextern\b|float4|Run|Submit|XP|GPU|CPU|KiB|\b[A-Z]{2,}\b|\w*_\w*(?:\(\))?|"
            r"\w+\(\)|<[^<>]*>|#\w+(?: unroll| once)?|\batomicCAS\b|\bcudaLaunchCooperativeKernel\b|\bassert\b|"
            r"\boperator\b")
    english = {key: re.findall(r"[A-Za-z]{3,}", re.sub(code, "", str(value), flags=re.ASCII))
               for key, value in KO.items() if key.startswith(("js.msg.", "js.fault.", "error."))}
    assert {key: words for key, words in english.items() if words} == {}


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
        used |= {"msg." + code for code in re.findall(r'"msg\.([a-z_]+)"', text)}
        used |= set(re.findall(r'S\["([a-z_.]+)"\]', text))
    strings = js_strings("en")
    assert used and sorted(used - set(strings)) == []


def test_translate_formats_and_falls_back() -> None:
    assert translate("ko", "lesson.of", order=2, total=5) == "레슨 02 / 05"
    assert translate("en", "lesson.of", order=2, total=5) == "Lesson 02 of 05"
    assert translate("xx", "nav.catalog") == "레슨"
    assert translate("en", "no.such.key") == "no.such.key"


APP = Path(__file__).resolve().parents[2] / "app"


def test_every_service_error_code_has_both_languages() -> None:
    """A code a service raises (`Invalid("…", "code")`) is shown translated on the pages."""
    raised: set[str] = set()
    pattern = re.compile(r'(?:Invalid|Conflict|Unauthorized|LimitReached|Forbidden|NotFound|ServiceError)\('
                         r'(?:[^()]|\([^()]*\))*?,\s*(?:"([a-z_]+)"(?:\s+if[^,]*?else\s+"([a-z_]+)")?)', re.S)
    for path in APP.rglob("*.py"):
        for match in pattern.finditer(path.read_text()):
            raised |= {code for code in match.groups() if code}
    assert {"signin_failed", "password_common", "comment_limit", "submit_hourly_limit_anon"} <= raised
    assert sorted(code for code in raised if f"error.{code}" not in KO or f"error.{code}" not in EN) == []


def test_every_emulator_diagnostic_kind_has_both_languages() -> None:
    from kernels.emu.target import DIAGNOSTIC_KINDS

    assert sorted(k for k in DIAGNOSTIC_KINDS if f"js.diag.{k}" not in KO or f"js.diag.{k}" not in EN) == []
