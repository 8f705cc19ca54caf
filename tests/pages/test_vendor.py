"""The committed front-end bundle matches its recipe: pinned versions, lock file, built files present."""

from __future__ import annotations

import json
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "static"
BUILD_SRC = STATIC / "build-src"
VENDOR = STATIC / "vendor"


def test_every_front_end_package_is_pinned_and_locked() -> None:
    package = json.loads((BUILD_SRC / "package.json").read_text())
    lock = json.loads((BUILD_SRC / "package-lock.json").read_text())
    pinned = package["devDependencies"]
    assert {"@codemirror/view", "@codemirror/lang-cpp", "@codemirror/lang-python", "@codemirror/lint", "katex", "htmx.org", "uplot", "esbuild"} <= set(pinned)
    for name, version in pinned.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} is not pinned: {version}"
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, name


def test_vendor_files_were_built_from_the_locked_versions() -> None:
    package = json.loads((BUILD_SRC / "package.json").read_text())
    built = json.loads((VENDOR / "VERSIONS.json").read_text())
    for name, version in package["devDependencies"].items():
        assert built[name] == version, name
    for path in ("editor.js", "htmx.min.js", "uPlot.iife.min.js", "uPlot.min.css",
                 "katex/katex.min.js", "katex/katex.min.css", "katex/auto-render.min.js"):
        assert (VENDOR / path).stat().st_size > 1000, path
    # Every font the KaTeX stylesheet names in woff2 is shipped.
    css = (VENDOR / "katex" / "katex.min.css").read_text()
    fonts = set(re.findall(r"url\(fonts/([^)]+\.woff2)\)", css))
    assert fonts and all((VENDOR / "katex" / "fonts" / f).is_file() for f in fonts)


def test_editor_bundle_exposes_the_api_the_page_uses() -> None:
    bundle = (VENDOR / "editor.js").read_text()
    assert "KDojoEditor" in bundle
    source = (BUILD_SRC / "editor.js").read_text()
    assert "window.KDojoEditor = { create, getText, setText, setMode, showDiagnostics };" in source
    # Triton kernels are Python (#29): the bundle highlights both languages
    assert 'from "@codemirror/lang-python"' in source and 'from "@codemirror/lang-cpp"' in source
