"""Fixtures for the judge tests: the real block_sum exercise and a scratch exercise folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LESSONS = REPO / "lessons"
BLOCK_SUM = LESSONS / "02-reduction" / "exercises" / "block_sum"


@pytest.fixture
def block_sum():
    from kernels.spec_parse import load_spec

    return load_spec(BLOCK_SUM / "exercise.toml")


@pytest.fixture
def scratch_exercise(tmp_path: Path) -> Path:
    """A copy of block_sum under tmp_path/lessons/02-reduction/exercises/block_sum."""
    target = tmp_path / "lessons" / "02-reduction" / "exercises" / "block_sum"
    shutil.copytree(BLOCK_SUM, target)
    return target
