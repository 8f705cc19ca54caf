"""The one Jinja2 environment of the app, with its globals:

- `t(key, **values)`: the interface string in the request's language,
- `csrf_token(request)`: the double-submit token for forms and `<meta>`,
- `static_url(path)`: `/static/<path>?v=<content hash>` so browsers may cache forever,
- `utc_time(value)`: a `<time>` element, "2026-11-24 08:30 UTC" (labelled) until
  `progress.js` shows it in the reader's time zone and language (Intl),
- `number(value)`: a number in the page's locale (Babel).
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
from pathlib import Path
from typing import Any

from fastapi.templating import Jinja2Templates
from jinja2 import pass_context, pass_eval_context
from jinja2.filters import do_tojson
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup, escape

from app.i18n import DEFAULT_LANG, format_number, track_title, translate
from app.security.csrf import csrf_token
from app.services.catalog_view import sees_drafts

REPO_ROOT = Path(__file__).resolve().parent.parent
TEMPLATES_DIR = REPO_ROOT / "templates"
STATIC_DIR = REPO_ROOT / "static"


@pass_context
def _t(context: Any, key: str, **values: object) -> str:
    return translate(context.get("lang") or DEFAULT_LANG, key, **values)


@pass_context
def _track_title(context: Any, track_id: str) -> str:
    return track_title(context.get("lang") or DEFAULT_LANG, track_id)


def utc_time(value: dt.datetime | str | None) -> Markup:
    """`<time datetime="…Z">YYYY-MM-DD HH:MM UTC</time>`; naive values are UTC (as stored)."""
    if value is None or value == "":
        return Markup("")
    when = dt.datetime.fromisoformat(value) if isinstance(value, str) else value
    if when.tzinfo is not None:
        when = when.astimezone(dt.timezone.utc).replace(tzinfo=None)
    iso = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    return Markup('<time datetime="{}">{} UTC</time>').format(escape(iso), when.strftime("%Y-%m-%d %H:%M"))


@pass_context
def _number(context: Any, value: float | int) -> str:
    return format_number(context.get("lang") or DEFAULT_LANG, value)


@functools.cache
def static_url(path: str) -> str:
    try:
        digest = hashlib.sha256((STATIC_DIR / path).read_bytes()).hexdigest()[:10]
    except FileNotFoundError:
        digest = "missing"
    return f"/static/{path}?v={digest}"


def html_json(value: Any) -> str:
    """What Jinja's `tojson` writes for `value` (sorted keys, `<>&'` escaped for HTML)."""
    return str(htmlsafe_json_dumps(value, sort_keys=True))


class PageData(dict):
    """A dict for `| tojson` whose listed values are serialized already (`known`:
    key → (the value, its `html_json`)): every page sends the browser the same ~20 KB
    of strings and tables per language, and serializing them was ~15% of a signed-in
    lesson page (issue #13). A known text is used only while the key still holds
    that very object; the result is what `tojson` writes for the plain dict."""

    __slots__ = ("known",)

    def __init__(self, values: dict[str, Any], known: dict[str, tuple[Any, str]]) -> None:
        super().__init__(values)
        self.known = known

    def to_json(self) -> str:
        parts = []
        for key in sorted(self):
            value = self[key]
            known = self.known.get(key)
            text = known[1] if known is not None and known[0] is value else html_json(value)
            parts.append(f"{html_json(key)}: {text}")
        return "{" + ", ".join(parts) + "}"


@pass_eval_context
def _tojson(eval_ctx: Any, value: Any, indent: int | None = None) -> Markup:
    if isinstance(value, PageData) and indent is None:
        return Markup(value.to_json())
    return do_tojson(eval_ctx, value, indent)


templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
templates.env.globals.update(t=_t, track_title=_track_title, csrf_token=csrf_token, static_url=static_url,
                             utc_time=utc_time, number=_number, sees_drafts=sees_drafts)
templates.env.filters["tojson"] = _tojson
