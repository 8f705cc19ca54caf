"""The judge's settings (#30): one declaration each in kernels/settings.py, every one in
docs/configuration.md ("Judge"), read nowhere else in kernels/, parsed with one-line errors."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from kernels import settings
from kernels.emu import jail
from kernels.sandbox import JobLimits, clean_env

from .conftest import REPO

KERNELS = REPO / "kernels"
_ROW = re.compile(r"^\| `(KDOJO_[A-Z0-9_]+)` \| ([^|]+) \|", flags=re.M)


def _judge_table() -> dict[str, str]:
    """Variable -> its Default cell, from the "## Judge" section of docs/configuration.md."""
    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert "\n## Judge\n" in text, "docs/configuration.md has no Judge section"
    section = text.split("\n## Judge\n", 1)[1].split("\n## ", 1)[0]
    return {name: default.strip() for name, default in _ROW.findall(section)}


def test_every_judge_setting_is_documented_and_nothing_else():
    declared = {s.env for s in settings.SETTINGS}
    documented = set(_judge_table())
    assert declared - documented == set(), "judge settings missing from docs/configuration.md"
    assert documented - declared == set(), "documented judge settings that kernels/settings.py lacks"


def test_the_documented_defaults_are_the_declared_ones():
    table = _judge_table()
    for s in settings.SETTINGS:
        if isinstance(s.default, (int, float)) and not isinstance(s.default, bool):
            assert table[s.env] == f"`{s.default:g}`", s.env
        elif s.default is True:
            assert table[s.env] == "`1`", s.env


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level NAME = "text" (also NAME, OTHER = "a", "b") assignments of a module."""
    found: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = [(target, node.value)]
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                pairs = list(zip(target.elts, node.value.elts))
            for name, value in pairs:
                if isinstance(name, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found[name.id] = value.value
    return found


def _is_environ(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or \
        (isinstance(node, ast.Name) and node.id == "environ")


def _read_names(node: ast.AST) -> list[ast.AST]:
    """The key expressions an os.environ / os.getenv read of `node` uses (none if it is not one)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        if node.func.attr in ("get", "pop", "setdefault") and _is_environ(node.func.value):
            return [node.args[0]]
        if node.func.attr == "getenv":
            return [node.args[0]]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getenv" and node.args:
        return [node.args[0]]
    if isinstance(node, ast.Subscript) and _is_environ(node.value):
        return [node.slice]
    if isinstance(node, ast.Compare) and any(_is_environ(c) for c in node.comparators):
        return [node.left]
    return []


def kdojo_reads(source: str, constants: dict[str, str]) -> list[tuple[int, str]]:
    """(line, variable) of every environment read of a KDOJO_* name in `source`: a literal,
    or a constant (NAME or module.NAME) of `constants` / the source's own."""
    tree = ast.parse(source)
    known = {**constants, **_constants(tree)}
    reads = []
    for node in ast.walk(tree):
        for key in _read_names(node):
            name = None
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                name = key.value
            elif isinstance(key, ast.Name):
                name = known.get(key.id)
            elif isinstance(key, ast.Attribute):
                name = known.get(key.attr)
            if name and name.startswith("KDOJO_"):
                reads.append((node.lineno, name))
    return reads


def test_no_kdojo_variable_is_read_outside_the_settings_module():
    files = [p for p in sorted(KERNELS.rglob("*.py")) if p != KERNELS / "settings.py"]
    constants: dict[str, str] = {}
    for path in files:  # a constant may be read through its module (cgroup.ROOT_ENV)
        constants.update(_constants(ast.parse(path.read_text(encoding="utf-8"))))
    found = [f"{path.relative_to(REPO)}:{line}: {name}" for path in files
             for line, name in kdojo_reads(path.read_text(encoding="utf-8"), constants)]
    assert found == [], "read these through kernels.settings"


def test_the_scan_finds_every_spelling_of_a_read():
    source = ('import os\nfrom os import environ, getenv\nX_ENV = "KDOJO_X"\n'
              'a = os.environ.get("KDOJO_A")\nb = os.getenv(X_ENV)\nc = os.environ["KDOJO_C"]\n'
              'd = "KDOJO_D" in os.environ\ne = environ.get(mod.Y_ENV)\nf = getenv("KDOJO_F")\n'
              'g = os.environ.get("CUDA_PATH")\n')
    assert kdojo_reads(source, {"Y_ENV": "KDOJO_Y"}) == [
        (4, "KDOJO_A"), (5, "KDOJO_X"), (6, "KDOJO_C"), (7, "KDOJO_D"), (8, "KDOJO_Y"), (9, "KDOJO_F")]


def test_settings_are_read_when_used_not_at_import(monkeypatch):
    monkeypatch.setenv("KDOJO_EMU_MEMORY_MB", "3000")
    monkeypatch.setenv("KDOJO_NCU_SKIP", " dram__bytes_read.sum, ,x ")
    monkeypatch.setenv("KDOJO_PROFILE", " OFF ")
    now = settings.judge_settings()
    assert (now.emu_memory_mb, now.ncu_skip, now.profile) == (3000, ("dram__bytes_read.sum", "x"), False)
    assert jail.program_memory_bytes("check") == (3000 << 20) // 3
    monkeypatch.setenv("KDOJO_EMU_MEMORY_MB", "10")  # below the floor
    assert settings.judge_settings().emu_memory_mb == 64


@pytest.mark.parametrize("name, bad, text", [
    ("KDOJO_TESTS_BUDGET_S", "soon", "KDOJO_TESTS_BUDGET_S: expected seconds, got 'soon'"),
    ("KDOJO_EMU_BUDGET_S", "-3", "KDOJO_EMU_BUDGET_S: expected seconds > 0, got '-3'"),
    ("KDOJO_JOB_PIDS", "12", "KDOJO_JOB_PIDS: expected a whole number ≥ 16, got '12'"),
    ("KDOJO_JOB_MEMORY_MB", "lots", "KDOJO_JOB_MEMORY_MB: expected a whole number ≥ 16, got 'lots'"),
])
def test_a_bad_strict_setting_is_one_line_naming_it(monkeypatch, name, bad, text):
    monkeypatch.setenv(name, bad)
    with pytest.raises(settings.SettingError) as caught:
        settings.judge_settings()
    assert str(caught.value) == text
    assert isinstance(caught.value, ValueError)  # what kdojo judge / kdojo sandbox print as one line


def test_a_bad_lenient_setting_is_its_default(monkeypatch):
    for s in settings.SETTINGS:
        if s.kind == "megabytes":
            monkeypatch.setenv(s.env, "two gigabytes")
            assert settings.value(s.env) == s.default, s.env
    assert not any(s.strict for s in settings.SETTINGS if s.kind == "megabytes")


def test_empty_is_unset(monkeypatch):
    for s in settings.SETTINGS:
        monkeypatch.setenv(s.env, "")
    assert settings.judge_settings() == settings.judge_settings({})
    assert JobLimits.from_env() == JobLimits()


def test_the_job_process_gets_the_settings_it_reads(monkeypatch, tmp_path: Path):
    for s in settings.SETTINGS:
        monkeypatch.setenv(s.env, "1")
    env = clean_env(tmp_path)
    assert {s.env for s in settings.SETTINGS if s.to_jobs} <= set(env)
    # the parent's limits stay with the parent: a job cannot read (or widen) its own
    assert {"KDOJO_JOB_MEMORY_MB", "KDOJO_JOB_PIDS", "KDOJO_CGROUP_ROOT", "KDOJO_TESTS_BUDGET_S"}.isdisjoint(env)
