"""Learner text never reaches a terminal or a log raw (#27).

A kernel's printf output went to `kdojo judge`'s text report byte for byte:
a cleared screen, a fake green "accepted", a window title. Run here as a real
`python -m kernels judge` process on the emulator, in text and JSON mode.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernels.emu.target import EmuTarget
from kernels.printable import printable, printable_doc, printable_json

REPO = Path(__file__).resolve().parents[2]
ATTACK = Path(__file__).resolve().parent / "emu_attacks" / "terminal_escapes.cu"
RAW = "\x1b[2J\x1b[H\x1b[32maccepted\x1b[0m\x07\x1b]0;pwned\x07\rtail\x9b2J\u202eend"
# What a terminal would act on: C0 but \t and \n, DEL, C1, bidi overrides.
ACTIVE = [chr(c) for c in (*range(0, 9), *range(11, 32), *range(0x7F, 0xA0))] + ["\u202e", "\u2066"]

needs_emu = pytest.mark.skipif(not EmuTarget().available(), reason="the emulator is not available here")


def _judge(*extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernels", "judge", str(ATTACK), "--exercise",
                           "reduction.block_sum", "--backend", "emu", "--no-bench", *extra],
                          capture_output=True, text=True, cwd=REPO, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


@needs_emu
def test_text_mode_shows_control_bytes_as_escapes():
    proc = _judge()
    assert proc.returncode == 0, proc.stderr
    assert not [c for c in ACTIVE if c in proc.stdout], proc.stdout[:400]
    assert "| \\x1b[2J\\x1b[H\\x1b[32maccepted\\x1b[0m\\x07\\x1b]0;pwned\\x07\\x0dtail\\x9b2J\\u202eend" in proc.stdout
    assert proc.stdout.splitlines()[0].split()[2] == "wrong_answer"


@needs_emu
def test_json_mode_keeps_the_raw_text_escaped_by_json():
    proc = _judge("--json")
    assert proc.returncode == 0, proc.stderr
    assert not [c for c in ACTIVE if c in proc.stdout], proc.stdout[:400]
    doc = json.loads(proc.stdout)
    assert doc["tests"][0]["output"] == RAW + "\n"  # the document itself keeps what the kernel wrote


def test_every_control_character_is_escaped_and_text_is_kept():
    for c in ACTIVE:
        assert c not in printable(f"a{c}b") and c not in printable_json({"x": f"a{c}b"})
    assert printable("블록 합\tok") == "블록 합\tok"
    assert printable("a\nb") == "a\\x0ab" and printable("a\nb", keep_newlines=True) == "a\nb"
    assert json.loads(printable_json({"x": RAW})) == {"x": RAW}


def test_a_fake_line_in_a_message_stays_on_its_line():
    doc = printable_doc({"message": "x\naccepted", "tests": [{"output": "1\n2\x1b"}]})
    assert doc == {"message": "x\\x0aaccepted", "tests": [{"output": "1\n2\\x1b"}]}
