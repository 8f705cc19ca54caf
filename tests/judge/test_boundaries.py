"""`kernels` imports with numpy and the standard library only: no web stack, no cupy."""

import subprocess
import sys

from .conftest import REPO

MODULES = ["kernels", "kernels.cli", "kernels.judge", "kernels.pipeline", "kernels.worker",
           "kernels.compile", "kernels.exercises", "kernels.targets.cuda", "kernels.targets",
           "kernels.contract", "kernels.languages", "kernels.languages.cuda", "kernels.languages.triton",
           "kernels.emu.target", "kernels.sandbox"]


def test_no_web_stack_and_no_cupy_at_import():
    code = ("import sys\n" + "".join(f"import {m}\n" for m in MODULES) +
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "{'app', 'fastapi', 'sqlalchemy', 'jinja2', 'starlette', 'huey', 'cupy', 'pydantic'})\n"
            "print(','.join(bad))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_no_kernels_module_mentions_app():
    for path in (REPO / "kernels").rglob("*.py"):
        text = path.read_text()
        assert "from app" not in text and "import app" not in text, path
