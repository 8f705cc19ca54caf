"""The one Jinja2 environment of the app, with its globals:

- `t(key, **values)`: the interface string in the request's language,
- `csrf_token(request)`: the double-submit token for forms and `<meta>`,
- `static_url(path)`: `/static/<path>?v=<content hash>` so browsers may cache forever.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

from fastapi.templating import Jinja2Templates
from jinja2 import pass_context

from app.i18n import DEFAULT_LANG, track_title, translate
from app.security.csrf import csrf_token

REPO_ROOT = Path(__file__).resolve().parent.parent
TEMPLATES_DIR = REPO_ROOT / "templates"
STATIC_DIR = REPO_ROOT / "static"


@pass_context
def _t(context: Any, key: str, **values: object) -> str:
    return translate(context.get("lang") or DEFAULT_LANG, key, **values)


@pass_context
def _track_title(context: Any, track_id: str) -> str:
    return track_title(context.get("lang") or DEFAULT_LANG, track_id)


@functools.cache
def static_url(path: str) -> str:
    try:
        digest = hashlib.sha256((STATIC_DIR / path).read_bytes()).hexdigest()[:10]
    except FileNotFoundError:
        digest = "missing"
    return f"/static/{path}?v={digest}"


templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
templates.env.globals.update(t=_t, track_title=_track_title, csrf_token=csrf_token, static_url=static_url)
