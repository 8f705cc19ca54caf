"""Translation stamps: is one language's text newer than the other's?

`lesson.toml` carries `[translation] ko = "<12 hex>", en = "<12 hex>"`: the first
12 hex digits of sha256 of each file's bytes, stamped when both were last
revised together. A file whose hash no longer matches changed since then; if
only one of the two changed, its translation is behind.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path

LANGS = ("ko", "en")
_SECTION_RE = re.compile(r"^\[translation\][^\n]*\n(?:(?!\[)[^\n]*\n?)*", re.MULTILINE)


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def _stamps(lesson_dir: Path) -> dict[str, object] | None:
    data = tomllib.loads((lesson_dir / "lesson.toml").read_text(encoding="utf-8"))
    section = data.get("translation")
    return section if isinstance(section, dict) else None


def check(lesson_dir: Path | str) -> list[str]:
    """Problems with the lesson's translation stamp; empty when ko and en agree."""
    lesson_dir = Path(lesson_dir)
    toml_path = lesson_dir / "lesson.toml"
    missing = [lang for lang in LANGS if not (lesson_dir / f"{lang}.md").is_file()]
    if missing:
        return [f"{lesson_dir / (missing[0] + '.md')}: missing"]
    stamps = _stamps(lesson_dir)
    if stamps is None:
        return [f"{toml_path}: translation: no [translation] stamp (run `kdojo lessons stamp {lesson_dir}`)"]
    stale = []
    for lang in LANGS:
        stamp = stamps.get(lang)
        if not isinstance(stamp, str):
            return [f"{toml_path}: translation.{lang}: missing"]
        if stamp != file_hash(lesson_dir / f"{lang}.md"):
            stale.append(lang)
    if len(stale) == 1:
        changed = stale[0]
        other = next(lang for lang in LANGS if lang != changed)
        return [
            f"{lesson_dir / (changed + '.md')}: changed since the translation stamp but "
            f"{other}.md did not: bring {other}.md up to date, then re-stamp"
        ]
    if len(stale) == 2:
        return [f"{toml_path}: translation: both texts changed since the stamp; re-stamp once they say the same"]
    return []


def stamp(lesson_dir: Path | str) -> dict[str, str]:
    """Record the current hashes of ko.md and en.md in lesson.toml; returns them."""
    lesson_dir = Path(lesson_dir)
    toml_path = lesson_dir / "lesson.toml"
    hashes = {lang: file_hash(lesson_dir / f"{lang}.md") for lang in LANGS}
    section = "[translation]\n" + "".join(f'{lang} = "{h}"\n' for lang, h in hashes.items())
    text = toml_path.read_text(encoding="utf-8")
    if _SECTION_RE.search(text):
        text = _SECTION_RE.sub(lambda _m: section, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    tomllib.loads(text)  # never write a lesson.toml we could not read back
    toml_path.write_text(text, encoding="utf-8")
    return hashes
