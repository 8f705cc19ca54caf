"""The lesson page as anonymous readers get it, rendered once and served from memory (issue #4).

An anonymous reader's lesson page depends only on the lesson, the language,
the catalog and the lesson's comments; everything personal (progress, XP) is
filled in by the browser from `localStorage`. So the page is rendered once per
(path, language) and kept for at most `ANON_PAGE_TTL_S` (the comments' 2 s
freshness: the page expires no later than the comments it shows).

What stays per request:

- the CSRF token: the page is rendered with a random placeholder in its place,
  stored as the bytes between the placeholders, and each response joins them
  with the reader's own token (the one `CSRFMiddleware` put in the scope and
  sets as a cookie);
- the `kdojo_lang` cookie set by `?lang=` (`app.i18n.remember_lang`'s rule);
- the headers the outer middlewares add (security headers, CSRF cookie).

`AnonPageMiddleware` serves a fresh entry for `GET /lessons/<id>` when the
request carries no session cookie, before routing and dependency solving; any
other request, a miss or an expired entry goes to the route, which renders and
stores the page again. A request with a session cookie never gets a cached
page. Entries are dropped when the lessons are reloaded (another catalog) and
when a comment of the lesson is posted or hidden (`app.state.anon_pages.drop_lesson`).
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import QueryParams
from starlette.requests import Request, cookie_parser
from starlette.responses import HTMLResponse, Response

from app.content import Catalog
from app.i18n import LANG_COOKIE, LANGS, choose_lang, remember_lang, set_lang_cookie
from app.security.csrf import csrf_token
from app.security.sessions import SESSION_COOKIE

ANON_PAGE_TTL_S = 2.0  # = ANON_COMMENTS_TTL_S: a page expires no later than the comments it shows
# Anonymous readers see a lesson's comments at most this old: it keeps the busiest
# page (a lesson read by many signed-out learners) off the database entirely.
# Signed-in learners and the comment-list fragment always read fresh.
ANON_COMMENTS_TTL_S = 2.0
MAX_ENTRIES = 4096  # bounded whatever paths are asked for (only existing lessons are stored)
MEDIA_TYPE = b"text/html; charset=utf-8"  # every stored page is a 200 with this type

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

# (database URL, lesson id) -> (fresh until, time.monotonic(); the comments)
_anon_comments: dict[tuple[str, str], tuple[float, list[Any]]] = {}


def fresh_comments(database_url: str, lesson_id: str) -> tuple[float, list[Any]] | None:
    """The lesson's comments as an anonymous reader may see them, if still fresh."""
    hit = _anon_comments.get((database_url, lesson_id))
    return hit if hit is not None and hit[0] > time.monotonic() else None


def remember_comments(database_url: str, lesson_id: str, comments: list[Any]) -> tuple[float, list[Any]]:
    entry = _anon_comments[(database_url, lesson_id)] = (time.monotonic() + ANON_COMMENTS_TTL_S, comments)
    return entry


def forget_comments(database_url: str, lesson_id: str) -> None:
    """A comment of the lesson was posted or hidden: the next anonymous page reads them again."""
    _anon_comments.pop((database_url, lesson_id), None)


# Never guessable by whoever writes a comment, so it cannot be planted in a page.
_SLOT = "kdojo-csrf-slot-" + secrets.token_hex(16)


@dataclass(frozen=True)
class Entry:
    expires: float  # time.monotonic()
    catalog: Catalog  # the catalog it was rendered from: a reload makes it stale
    lesson_id: str
    parts: tuple[bytes, ...]  # the page split where the CSRF token goes

    def body(self, token: str) -> bytes:
        return token.encode("latin-1").join(self.parts)


class AnonPageCache:
    """(path, language) → Entry; one per app (so one per database)."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self._entries: dict[tuple[str, str], Entry] = {}
        self._lock = threading.Lock()  # routes render in the threadpool
        self.hits = 0
        # Bumped by every drop: a render that began before a drop (and may have read
        # the comments before the change) is not stored after it.
        self.generation = 0

    def get(self, path: str, lang: str, catalog: Catalog) -> Entry | None:
        entry = self._entries.get((path, lang))
        if entry is None or entry.catalog is not catalog or entry.expires <= time.monotonic():
            return None
        return entry

    def put(self, path: str, lang: str, entry: Entry, generation: int) -> None:
        with self._lock:
            if generation != self.generation:
                return
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
            self._entries[(path, lang)] = entry

    def drop_lesson(self, lesson_id: str) -> None:
        """A comment of `lesson_id` was posted or hidden: anonymous readers see it on their next page."""
        with self._lock:
            self.generation += 1
            forget_comments(self.database_url, lesson_id)
            for key in [k for k, e in self._entries.items() if e.lesson_id == lesson_id]:
                del self._entries[key]

    def clear(self) -> None:
        with self._lock:
            self.generation += 1
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def cache_of(app: Any) -> AnonPageCache | None:
    return getattr(app.state, "anon_pages", None)


def generation(app: Any) -> int:
    """Taken by the route before it reads what goes into the page (see AnonPageCache.put)."""
    cache = cache_of(app)
    return cache.generation if cache is not None else 0


def render_and_store(request: Request, name: str, context: dict[str, Any], lesson_id: str, catalog: Catalog,
                     expires: float, since_generation: int) -> HTMLResponse:
    """Render `name` (from `catalog`) for an anonymous reader, keep it until `expires`
    (monotonic) unless the lesson's page was dropped since `since_generation`, and
    answer this request with it (its own CSRF token, its language cookie)."""
    from app.templating import templates

    token = csrf_token(request)
    # the stored page is every anonymous reader's: nothing from this reader's query in it
    context = context | {"lang_switch_query": ""}
    state = request.scope.setdefault("state", {})
    state["csrf_token"] = _SLOT
    try:
        html = templates.get_template(name).render(context)
    finally:
        state["csrf_token"] = token
    parts = tuple(part.encode() for part in html.split(_SLOT))
    entry = Entry(expires=min(expires, time.monotonic() + ANON_PAGE_TTL_S), catalog=catalog,
                  lesson_id=lesson_id, parts=parts)
    cache = cache_of(request.app)
    if cache is not None and token:
        cache.put(request.scope["path"], context["lang"], entry, since_generation)
    response = HTMLResponse(entry.body(token))
    remember_lang(request, response)
    return response


def _lang_cookie_header(lang: str) -> bytes:
    response = Response()
    set_lang_cookie(response, lang)
    return response.raw_headers[-1][1]


_LANG_COOKIE_HEADERS = {lang: _lang_cookie_header(lang) for lang in LANGS}


class AnonPageMiddleware:
    """Answers `GET /lessons/<id>` without a session cookie from the cache. It must
    sit inside `CSRFMiddleware` (which puts the reader's token in the scope).

    When a page is missing or has expired, the first reader asking for it goes
    to the route, which renders and stores it; readers asking for the same page
    meanwhile wait for that one render instead of each rendering it again (at
    the 2 s expiry of a busy page that was a burst of renders, each slower for
    the others), then get the stored page, or go to the route themselves when
    none was stored (a 404, a failed render)."""

    WAIT_S = 10.0  # the most a reader waits for another's render before rendering itself

    def __init__(self, app: Any) -> None:
        self.app = app
        self._rendering: dict[tuple[str, str], asyncio.Event] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"].startswith("/lessons/"):
            reader = _anonymous_reader(scope)
            if reader is not None:
                await self._anonymous(scope, receive, send, *reader)
                return
        await self.app(scope, receive, send)

    async def _anonymous(self, scope: Scope, receive: Receive, send: Send, cache: AnonPageCache,
                         token: str, lang: str, asked: str | None, cookie_lang: str | None) -> None:
        key = (scope["path"], lang)
        catalog = scope["app"].state.catalog
        entry = cache.get(key[0], lang, catalog)
        if entry is None and (rendering := self._rendering.get(key)) is not None:
            try:
                await asyncio.wait_for(rendering.wait(), self.WAIT_S)
            except asyncio.TimeoutError:
                pass
            entry = cache.get(key[0], lang, scope["app"].state.catalog)
        if entry is not None:
            cache.hits += 1
            body = entry.body(token)
            headers = [(b"content-length", str(len(body)).encode()), (b"content-type", MEDIA_TYPE)]
            if asked in LANGS and cookie_lang != asked:
                headers.append((b"set-cookie", _LANG_COOKIE_HEADERS[asked]))
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        if key in self._rendering:  # waited in vain: render it ourselves
            await self.app(scope, receive, send)
            return
        self._rendering[key] = done = asyncio.Event()
        try:
            await self.app(scope, receive, send)
        finally:
            del self._rendering[key]
            done.set()


def _anonymous_reader(scope: Scope) -> tuple[AnonPageCache, str, str, str | None, str | None] | None:
    """(cache, CSRF token, language, ?lang=, kdojo_lang cookie) for a request that may get a
    stored page; None when it may not (a session cookie: the route looks it up)."""
    app = scope.get("app")
    cache = cache_of(app) if app is not None else None
    token = scope.get("state", {}).get("csrf_token")
    if cache is None or not token:
        return None
    cookies: dict[str, str] = {}
    for name, value in scope["headers"]:
        if name == b"cookie":
            cookies = cookie_parser(value.decode("latin-1"))
            break
    if SESSION_COOKIE in cookies:  # possibly signed in
        return None
    asked = QueryParams(scope["query_string"]).get("lang") if scope["query_string"] else None
    cookie_lang = cookies.get(LANG_COOKIE)
    return cache, token, choose_lang(asked, cookie_lang), asked, cookie_lang
