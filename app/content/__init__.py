"""Lesson content: the catalog loader, the Markdown renderer and the translation check."""

from app.content.catalog import Catalog, ExerciseFiles, LanguageFiles, Lesson, LessonText, Track, load_catalog
from app.content.languages import DEFAULT_LANGUAGE, LANGUAGES, LanguageInfo, language_info
from app.content.errors import LessonError
from app.content.markdown import render_inline, render_markdown

__all__ = [
    "Catalog",
    "DEFAULT_LANGUAGE",
    "ExerciseFiles",
    "LANGUAGES",
    "LanguageFiles",
    "LanguageInfo",
    "Lesson",
    "LessonError",
    "LessonText",
    "Track",
    "language_info",
    "load_catalog",
    "render_inline",
    "render_markdown",
]
