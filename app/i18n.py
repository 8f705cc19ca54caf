"""Interface language: Korean first (the default), English second.

The language comes from `?lang=` (which the page then remembers in the
`kdojo_lang` cookie), else from that cookie, else Korean. Strings live in
`app/i18n_strings.py`; a key missing from a table is a bug that a test catches,
and at run time it shows as the key itself rather than an error page.

Plural forms, numbers and dates go through Babel (CLDR data): a string may be
`{"one": …, "other": …}`, chosen by the locale's plural rule for `n`.
"""

from __future__ import annotations

import functools

from starlette.requests import Request
from starlette.responses import Response

from babel import Locale
from babel.numbers import format_decimal

from app.i18n_strings import STRINGS

LANGS = ("ko", "en")
DEFAULT_LANG = "ko"
LANG_COOKIE = "kdojo_lang"
LANG_COOKIE_MAX_AGE_S = 365 * 24 * 3600


def choose_lang(asked: str | None, cookie: str | None) -> str:
    """`?lang=` when it names a language, else the `kdojo_lang` cookie's, else the default."""
    if asked in LANGS:
        return asked
    return cookie if cookie in LANGS else DEFAULT_LANG


def request_lang(request: Request) -> str:
    """The language this request is served in (also stored on `request.state.lang`)."""
    lang = choose_lang(request.query_params.get("lang"), request.cookies.get(LANG_COOKIE))
    request.state.lang = lang
    return lang


def set_lang_cookie(response: Response, lang: str) -> None:
    response.set_cookie(LANG_COOKIE, lang, max_age=LANG_COOKIE_MAX_AGE_S, samesite="lax", httponly=True, path="/")


def remember_lang(request: Request, response: Response) -> None:
    """Set the cookie when the language was chosen by `?lang=` on this request."""
    asked = request.query_params.get("lang")
    if asked in LANGS and request.cookies.get(LANG_COOKIE) != asked:
        set_lang_cookie(response, asked)


_LOCALES = {lang: Locale.parse(lang) for lang in LANGS}


def plural_category(lang: str, count: object) -> str:
    """CLDR plural category ("one", "other", …) of `count` in `lang` (Korean: always "other")."""
    try:
        return _LOCALES.get(lang, _LOCALES[DEFAULT_LANG]).plural_form(abs(float(count)))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "other"


def pick(lang: str, entry: object, values: dict[str, object]) -> str:
    """The text of a table entry: a plural dict is resolved by `n` (or the first number given)."""
    if not isinstance(entry, dict):
        return str(entry)
    count = values.get("n", next((v for v in values.values() if isinstance(v, (int, float))), 0))
    return entry.get(plural_category(lang, count)) or entry["other"]


def translate(lang: str, key: str, **values: object) -> str:
    table = STRINGS.get(lang, STRINGS[DEFAULT_LANG])
    entry = table.get(key) or STRINGS[DEFAULT_LANG].get(key) or key
    text = pick(lang if lang in LANGS else DEFAULT_LANG, entry, values)
    return text.format(**values) if values else text


def format_number(lang: str, value: float | int) -> str:
    """A number in the reader's locale (grouping separators)."""
    return format_decimal(value, locale=_LOCALES.get(lang, _LOCALES[DEFAULT_LANG]))


_JS_PREFIXES = ("bar.", "catalog.", "exercise.", "error.")


def track_title(lang: str, track_id: str) -> str:
    """A track's display name; the id itself for a track the tables do not name."""
    key = f"track.{track_id}"
    return translate(lang, key) if key in STRINGS[DEFAULT_LANG] else track_id


@functools.cache
def js_strings(lang: str) -> dict[str, str]:
    """The strings the browser scripts need: `js.*` (prefix dropped), and the
    learner bar's, catalog's and exercise panel's (full keys), which the
    scripts re-render from local progress. Built once per language (every page
    sends them); callers must not change the dict."""
    table = STRINGS[lang]
    strings = {k[3:]: v for k, v in table.items() if k.startswith("js.")}
    strings.update({k: v for k, v in table.items() if k.startswith(_JS_PREFIXES)})
    return strings
