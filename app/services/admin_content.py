"""Reload the lessons without a restart: the admin endpoint and the development file watcher.

A reload builds a whole new catalog first; only when it loads without error does
it replace the one the pages, the API and the embedded worker use. A malformed
lesson leaves the running catalog untouched and reports `file: field: message`.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from app.content import Catalog, LessonError, load_catalog
from app.services.errors import Invalid
from kernels.spec import SpecError

log = logging.getLogger("kdojo.lessons")


def reload_catalog(app: Any) -> Catalog:
    """Load the lessons again and swap them in; raises Invalid (the old catalog stays)."""
    try:
        catalog = load_catalog(app.state.settings.lessons_dir)  # strict: a bad lesson keeps the old catalog
    except (LessonError, SpecError) as exc:
        raise Invalid(f"The lessons were not reloaded: {exc}") from None
    app.state.catalog = catalog
    pages = getattr(app.state, "anon_pages", None)
    if pages is not None:  # cached anonymous lesson pages were rendered from the old lessons
        pages.clear()
    worker = getattr(app.state, "worker", None)
    if worker is not None:
        worker.runtime.catalog = catalog
    return catalog


def summary(catalog: Catalog) -> dict[str, Any]:
    lessons = list(catalog.lessons.values())
    return {
        "lessons": len(lessons),
        "drafts": sorted(lesson.id for lesson in lessons if lesson.status == "draft"),
        "exercises": sum(len(lesson.exercises) for lesson in lessons),
    }


def lesson_list(catalog: Catalog) -> list[dict[str, Any]]:
    return [{"id": lesson.id, "track": lesson.track, "order": lesson.order, "status": lesson.status,
             "title": {lang: text.title for lang, text in lesson.texts.items()},
             "exercises": list(lesson.exercise_ids), "folder": lesson.dir.name} for lesson in catalog.lessons.values()]


def snapshot(lessons_dir: Path) -> dict[str, float]:
    """path → mtime of every file under the lessons folder (what the watcher compares)."""
    found: dict[str, float] = {}
    for path in Path(lessons_dir).rglob("*"):
        try:
            if path.is_file():
                found[str(path)] = path.stat().st_mtime
        except OSError:  # removed while we looked
            continue
    return found


class LessonWatcher:
    """Development only (KDOJO_RELOAD_LESSONS=1): polls file times, reloads on a change.

    Polling, not inotify: no dependency, works on every file system, and a
    lessons folder is small enough to stat every `interval_s`."""

    def __init__(self, app: Any, interval_s: float) -> None:
        self.app = app
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kdojo-lesson-watcher", daemon=True)
        self.reloads = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        lessons_dir = self.app.state.settings.lessons_dir
        seen = snapshot(lessons_dir)
        while not self._stop.wait(self.interval_s):
            now = snapshot(lessons_dir)
            if now == seen:
                continue
            seen = now
            try:
                reload_catalog(self.app)
                self.reloads += 1
                log.info("lessons reloaded: %s", summary(self.app.state.catalog))
            except Invalid as exc:
                log.warning("%s", exc.detail)
