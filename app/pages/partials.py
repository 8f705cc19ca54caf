"""Template partials rendered once and kept, keyed by everything they are rendered from (issue #13).

A signed-in lesson page is rendered for each request, but an exercise panel in
it (instructions, editor, hints, results area, reference) is the same for every
reader with the same language and the same solved state. `render_partial`
renders a partial from its inputs and the language **alone**: no request, no
user, no CSRF token go into the template, so nothing of one reader's can end up
in a kept fragment unless it is one of the inputs, and then it is part of the
key. A reloaded lesson brings new texts, hence new inputs and a new key.

Kept at most `MAX_ENTRIES` (then the store starts again); bypassed when
templates are re-read from disk (development, `templates.env.auto_reload`).
"""

from __future__ import annotations

import threading
from typing import Any

from markupsafe import Markup

from app.templating import templates

MAX_ENTRIES = 1024

_store: dict[tuple[Any, ...], Markup] = {}
_lock = threading.Lock()  # pages render in the threadpool


def freeze(value: Any) -> Any:
    """A hashable copy of JSON-like inputs (dicts, lists, strings, numbers, None)."""
    if isinstance(value, dict):
        return tuple(sorted((key, freeze(item)) for key, item in value.items()))
    if isinstance(value, list | tuple):
        return tuple(freeze(item) for item in value)
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    raise TypeError(f"a partial's input must be JSON-like, not {type(value).__name__}")


def render_partial(name: str, lang: str, **inputs: Any) -> Markup:
    """`name` rendered with `lang` and `inputs` only, from the store when it is there."""
    if templates.env.auto_reload:
        return Markup(templates.get_template(name).render(lang=lang, **inputs))
    key = (name, lang, freeze(inputs))
    html = _store.get(key)
    if html is None:
        html = Markup(templates.get_template(name).render(lang=lang, **inputs))
        with _lock:
            if len(_store) >= MAX_ENTRIES:
                _store.clear()
            _store[key] = html
    return html


def clear() -> None:
    with _lock:
        _store.clear()


def size() -> int:
    return len(_store)
