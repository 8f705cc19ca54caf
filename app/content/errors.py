"""The one error a malformed lesson raises: it names the file and the field."""

from __future__ import annotations

from pathlib import Path


class LessonError(Exception):
    """A lesson folder that cannot be loaded. `str()` reads `path: field: message`."""

    def __init__(self, path: Path | str, field: str, message: str) -> None:
        self.path = Path(path)
        self.field = field
        self.message = message
        super().__init__(f"{self.path}: {field}: {message}")
