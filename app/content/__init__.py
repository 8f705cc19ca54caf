"""Lesson content: the catalog loader, the Markdown renderer and the translation check."""

from app.content.catalog import Catalog, ExerciseFiles, Lesson, LessonText, Track, load_catalog
from app.content.errors import LessonError
from app.content.markdown import render_inline, render_markdown

__all__ = [
    "Catalog",
    "ExerciseFiles",
    "Lesson",
    "LessonError",
    "LessonText",
    "Track",
    "load_catalog",
    "render_inline",
    "render_markdown",
]
