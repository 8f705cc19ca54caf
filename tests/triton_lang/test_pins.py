"""One Triton version everywhere: pyproject's pin, the installed Triton, the docs (#29)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from kernels.triton import jail

REPO = Path(__file__).resolve().parents[2]


def pinned() -> str:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    pins = [d for d in extras["triton"] if re.match(r"triton\b", d)]
    assert len(pins) == 1 and re.fullmatch(r"triton==\d+\.\d+\.\d+", pins[0]), pins
    return pins[0].split("==")[1]


def test_the_docs_name_the_pinned_version() -> None:
    for doc in ("docs/judge.md",):
        named = set(re.findall(r"Triton \**(\d+\.\d+\.\d+)", (REPO / doc).read_text()))
        assert named == {pinned()}, (doc, named)


def test_setup_installs_the_triton_extra() -> None:
    assert re.search(r"local extras=test,triton\b", (REPO / "dev").read_text())


def test_the_installed_triton_is_the_pinned_one() -> None:
    try:
        version = jail.runtime().triton_version
    except jail.Unavailable as exc:
        pytest.skip(str(exc))
    if version is None:
        pytest.skip(f"Triton is not installed for {jail.python_executable()}")
    assert version == pinned()
    assert jail.runtime().toolchain == f"triton {pinned()}"
