"""Every kernel source of every lesson compiles with the real NVRTC: the starter
and the reference cleanly (no diagnostics), every solution against its exercise's
signature, and every baseline kernel the benchmark launches."""

from __future__ import annotations

from pathlib import Path

import pytest

LESSONS_DIR = Path(__file__).resolve().parents[2] / "lessons"
EXERCISES = sorted((p.parents[2].name, p.parent.name) for p in LESSONS_DIR.glob("*/exercises/*/exercise.toml"))
# Starters whose blank leaves a variable set but unused: NVRTC warns until the learner fills it in.
STARTER_WARNS = {("02-reduction", "block_sum")}


@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_every_kernel_source_compiles_with_nvrtc(kit, folder, name):
    from kernels.exercises import find_exercise
    from kernels.compile import compile_submission
    from kernels.nvrtc import compile_program

    # only this exercise's folder is loaded: another lesson being written cannot fail it
    exercise = find_exercise(kit.read_exercise_toml(folder, name)["id"], kit.LESSONS_DIR)
    root = kit.exercise_dir(folder, name)
    for path in [root / "starter.cu", root / "reference.cu", *sorted((root / "solutions").rglob("*.cu"))]:
        result = compile_submission(path.read_text(encoding="utf-8"), exercise)
        assert result.ok, f"{path}: {result.log}"
        if path.name == "reference.cu" or (path.name == "starter.cu" and (folder, name) not in STARTER_WARNS):
            assert not result.diagnostics, f"{path}: {result.log}"
    for baseline in exercise.benchmark.baselines if exercise.benchmark else ():
        if baseline.source is not None:
            source = (root / baseline.source).read_text(encoding="utf-8")
            out = compile_program(source, "kernel.cu", ["-std=c++17", "--gpu-architecture=sm_90"])
            assert out.ok, f"{baseline.source}: {out.log}"
            for launch in baseline.launches:
                assert f"void {launch.kernel}(" in source, f"{baseline.source}: no kernel {launch.kernel}"
