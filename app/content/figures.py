"""Lesson figures: image files in a lesson's own `figures/` folder (issue #28).

A lesson text places one with `![alt](figures/name.svg)`; the renderer turns
that into `/lessons/<id>/figures/name.svg`, which serves only files that pass
`figure_problem`. The page shows a figure through `<img>`, where an SVG cannot
run script anyway; the checks are for the reader who opens the file's URL
directly, where it would be a document of our origin. So an SVG must be plain
drawing: no script, no event handlers, no foreign content, no links out.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

FIGURES_DIR = "figures"
MEDIA_TYPES = {".svg": "image/svg+xml", ".png": "image/png"}
# One plain file name: no folders, no dot files, only the extensions above.
FIGURE_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]*(?:\.[a-z0-9_-]+)*\.(?:svg|png)")
FIGURE_SRC_PREFIX = FIGURES_DIR + "/"
MAX_FIGURE_BYTES = 512 * 1024  # a diagram is a few kB; anything near this is a mistake
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_SVG_NS = "{http://www.w3.org/2000/svg}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
# Elements that run script, embed other documents or animate attributes (an
# <animate> or <set> can write an href or an event handler after load).
_FORBIDDEN_ELEMENTS = {"script", "foreignobject", "iframe", "embed", "object", "animate", "set",
                       "animatemotion", "animatetransform", "handler", "listener"}


def figure_name(src: str) -> str | None:
    """`figures/name.svg` → `name.svg`; None for any other image address."""
    if not src.startswith(FIGURE_SRC_PREFIX):
        return None
    name = src[len(FIGURE_SRC_PREFIX):]
    return name if FIGURE_NAME_RE.fullmatch(name) else None


def figure_path(lesson_dir: Path, name: str) -> Path | None:
    """The file a figure name stands for, or None: a bad name, a missing file,
    or a link that leads out of the lesson's figures folder."""
    if not FIGURE_NAME_RE.fullmatch(name):
        return None
    folder = (lesson_dir / FIGURES_DIR).resolve()
    path = (folder / name).resolve()
    return path if path.parent == folder and path.is_file() else None


def figure_size(path: Path) -> tuple[int, int] | None:
    """A figure's intrinsic width and height (an SVG's viewBox, a PNG's header),
    or None when they cannot be read. The page gives them to `<img>` so the
    browser keeps the figure's room before it loads and the text below does not jump."""
    try:
        data = path.read_bytes()[:MAX_FIGURE_BYTES + 1]
    except OSError:
        return None
    if path.suffix == ".png":
        if not data.startswith(_PNG_MAGIC) or len(data) < 24:
            return None
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    else:
        match = re.search(rb"<svg\b[^>]*?\bviewBox\s*=\s*[\"']\s*([-\d.eE+]+)[\s,]+([-\d.eE+]+)[\s,]+"
                          rb"([\d.eE+]+)[\s,]+([\d.eE+]+)\s*[\"']", data)
        if not match:
            return None
        try:
            width, height = round(float(match[3])), round(float(match[4]))
        except ValueError:
            return None
    return (width, height) if 0 < width <= 100_000 and 0 < height <= 100_000 else None


def figure_problem(name: str, data: bytes) -> str | None:
    """Why these bytes may not be served as figure `name`; None when they may."""
    if len(data) > MAX_FIGURE_BYTES:
        return f"{len(data)} bytes: a figure may have at most {MAX_FIGURE_BYTES}"
    if name.endswith(".png"):
        return None if data.startswith(_PNG_MAGIC) else "not a PNG file"
    return _svg_problem(data)


def _svg_problem(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    if re.search(r"<!(?:DOCTYPE|ENTITY)", text, re.I):  # entities can hide anything, or explode
        return "has a DOCTYPE or ENTITY declaration"
    if re.search(r"<\?xml-stylesheet", text, re.I):  # ElementTree drops processing instructions: look first
        return "loads a stylesheet (<?xml-stylesheet?>)"
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        return f"not well-formed XML: {exc}"
    if root.tag != _SVG_NS + "svg":
        return "the root element is not <svg> in the SVG namespace"
    if "viewBox" not in root.attrib:
        return "<svg> has no viewBox: it could not scale down to a phone's width"
    for element in root.iter():
        problem = _element_problem(element)
        if problem:
            return problem
    return None


def _element_problem(element: ET.Element) -> str | None:
    tag = element.tag.rpartition("}")[2] if isinstance(element.tag, str) else ""
    if tag.lower() in _FORBIDDEN_ELEMENTS:
        return f"contains <{tag}>: a figure is a drawing, nothing that runs or embeds"
    for attribute, value in element.attrib.items():
        local = attribute.rpartition("}")[2].lower()
        if local.startswith("on"):
            return f"<{tag}> has an event handler attribute {local!r}"
        if (local == "href" or attribute == _XLINK_HREF) and not value.startswith("#"):
            return f"<{tag}> links to {value!r}: only references inside the file (#id) are allowed"
    if tag == "style" and re.search(r"url\s*\(\s*['\"]?(?!#)|@import", element.text or "", re.I):
        return "<style> loads something from outside the file"
    return None
