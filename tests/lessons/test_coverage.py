"""`kdojo lessons coverage` (#28): the test cases of every exercise run every line of its
reference kernels, or the reference says on that line why none does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.authoring.scaffold import create
from kernels.exercises import load_exercises
from kernels.coverage import cover
from kernels.emu.build import toolchain_ok

REPO_ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not toolchain_ok(), reason="the emulator needs g++ and libboost-context-dev")

# The scaffold's reference with a branch no case takes (its sizes stop at 65,536): a solution
# wrong only there would pass every case.
DEAD_BRANCH = """extern "C" __global__ void affine(const float* x, float* y, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (N > (1 << 30) && i == 0) y[0] = 3.0f * x[0] + 1.0f;{excuse}
    if (i < N) {
        y[i] = 3.0f * x[i] + 1.0f;
    }
}
"""


def scaffolded(tmp_path: Path, excuse: str = "") -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    folder = create(tmp_path, "tiny-cov", "foundations", None)
    (folder / "exercises" / "affine" / "reference.cu").write_text(DEAD_BRANCH.replace("{excuse}", excuse))
    return tmp_path


def kdojo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", "lessons", "coverage", *args], capture_output=True,
                          text=True, timeout=600, cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})


def test_a_line_no_case_runs_is_reported_by_its_line(tmp_path):
    report = cover(load_exercises(scaffolded(tmp_path))["tiny-cov.affine"])
    assert report.verdict == "accepted"
    assert report.unreached == [3] and not report.ok
    assert {2, 4, 5} <= report.reached
    assert "reference.cu:3: unreached: if (N > (1 << 30)" in report.render()


def test_an_excuse_on_the_line_is_accepted_and_a_stale_one_reported(tmp_path):
    excused = cover(load_exercises(scaffolded(tmp_path / "a", "  // unreached: only inputs past 2^30"))["tiny-cov.affine"])
    assert excused.ok and excused.excused == {3: "only inputs past 2^30"} and excused.unreached == []
    folder = scaffolded(tmp_path / "b")
    reference = folder / "01-tiny-cov" / "exercises" / "affine" / "reference.cu"
    lines = reference.read_text().splitlines()
    lines[3] += "  // unreached: wrongly claimed"
    reference.write_text("\n".join(lines) + "\n")
    stale = cover(load_exercises(folder)["tiny-cov.affine"])
    assert stale.stale_excuses == [4] and not stale.ok
    assert "reference.cu:4: marked unreached, but a case runs it" in stale.render()


def test_the_command_exits_1_on_unreached_code_and_2_on_a_name_it_does_not_know(tmp_path):
    folder = scaffolded(tmp_path)
    found = kdojo("tiny-cov", "--dir", str(folder))
    assert found.returncode == 1, found.stderr
    assert "tiny-cov.affine: 4 of 5 lines with code reached" in found.stdout
    unknown = kdojo("no-such-lesson", "--dir", str(folder))
    assert unknown.returncode == 2
    assert unknown.stderr.strip().splitlines() == [
        f"kdojo lessons coverage: no lesson or exercise 'no-such-lesson' in {folder}"]


EXERCISES = sorted(load_exercises(REPO_ROOT / "lessons"))


@pytest.mark.corpus
@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_every_exercise_runs_its_whole_reference(exercise_id):
    report = cover(load_exercises(REPO_ROOT / "lessons")[exercise_id])
    assert report.ok, report.render()
