"""`/lessons/<id>/figures/<name>`: a lesson's figure files (issue #28).

Only `.svg` and `.png` files from that lesson's own `figures/` folder, and only
ones `figure_problem` passes (a scripted SVG is refused here too, not just by
`kdojo lessons validate`). Readers revalidate with the ETag, so a changed
figure shows at once and an unchanged one costs a 304.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from fastapi import APIRouter, HTTPException, Request
from starlette.responses import Response

from app.content.figures import MEDIA_TYPES, figure_path, figure_problem

router = APIRouter()

_CACHE_MAX = 256  # figures held in memory: (path, mtime_ns, size) → (etag, bytes)
_cache: dict[tuple[Path, int, int], tuple[str, bytes]] = {}


def _load(path: Path) -> tuple[str, bytes] | None:
    """(ETag, bytes) of a servable figure; None when it must not be served."""
    stat = path.stat()
    key = (path, stat.st_mtime_ns, stat.st_size)
    hit = _cache.get(key)
    if hit is None:
        data = path.read_bytes()
        if figure_problem(path.name, data) is not None:
            return None
        if len(_cache) >= _CACHE_MAX:
            _cache.clear()
        hit = _cache[key] = ('"' + hashlib.sha256(data).hexdigest()[:20] + '"', data)
    return hit


@router.get("/lessons/{lesson_id}/figures/{name}", name="lesson_figure")
def lesson_figure(lesson_id: str, name: str, request: Request) -> Response:
    lesson = request.app.state.catalog.lesson(lesson_id)
    path = figure_path(lesson.dir, name) if lesson is not None else None
    loaded = _load(path) if path is not None else None
    if loaded is None:
        raise HTTPException(status_code=404)  # the same answer for every reason: nothing to probe
    etag, data = loaded
    headers = {"etag": etag, "cache-control": "public, no-cache"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(data, media_type=MEDIA_TYPES[path.suffix], headers=headers)
