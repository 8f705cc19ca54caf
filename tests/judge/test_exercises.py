"""The catalog of every lesson's exercises, and properties every exercise must have."""

import numpy as np
import pytest

from kernels.exercises import find_exercise, load_catalog, load_exercises
from kernels.check import reference_is_trivial
from kernels.plan import buffer_shapes, case_dict, env_for, load_reference
from kernels.spec import SpecError

from .conftest import LESSONS

EXERCISES, ERRORS = load_catalog(LESSONS)


def test_every_spec_in_the_repository_loads():
    assert ERRORS == []
    assert "reduction.block_sum" in EXERCISES


def test_block_sum_has_what_the_web_needs():
    exercise = find_exercise("reduction.block_sum", LESSONS)
    assert exercise.lesson_dir.name == "02-reduction"
    assert exercise.name == "block_sum"
    assert set(exercise.instructions) == {"ko", "en"}
    assert exercise.xp > 0 and exercise.difficulty == "easy"


def test_duplicate_ids_are_refused(scratch_exercise):
    other = scratch_exercise.parents[2] / "09-copy" / "exercises" / "block_sum"
    other.parent.mkdir(parents=True)
    import shutil

    shutil.copytree(scratch_exercise, other)
    with pytest.raises(SpecError, match="already used by"):
        load_exercises(scratch_exercise.parents[2])
    found, errors = load_catalog(scratch_exercise.parents[2])
    assert list(found) == ["reduction.block_sum"] and len(errors) == 1


def test_unknown_id():
    with pytest.raises(KeyError):
        find_exercise("reduction.nothing", LESSONS)


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_references_match_the_spec_and_are_never_trivial(exercise_id):
    """Zeros must never pass: every test case's expected output differs from 0."""
    exercise = EXERCISES[exercise_id]
    reference = load_reference(exercise)
    constants = {c.name: c.default for c in exercise.constants}
    for index, case in enumerate(exercise.tests):
        cased = case_dict(case, constants)
        shapes = buffer_shapes(exercise, env_for(case, constants))
        inputs = reference.generate(cased, np.random.default_rng(index))
        for buffer in exercise.buffers:
            if buffer.role in ("in", "inout"):
                assert np.shape(inputs[buffer.name]) == shapes[buffer.name], (case.label, buffer.name)
        want = reference.reference(inputs, cased)
        scales = reference.error_scale(inputs, cased) if hasattr(reference, "error_scale") else {}
        for name, expected in want.items():
            assert np.shape(expected) == shapes[name], (case.label, name)
            assert not reference_is_trivial(expected, exercise.atol, scales.get(name, 1.0)), case.label


def test_a_constant_sets_the_dynamic_shared_memory_of_a_launch():
    """wmma_fp16's launch takes `shared_bytes` from SMEM_BYTES: 0 unless the source defines it."""
    from kernels.constants import read_constants
    from kernels.plan import resolve_launches

    exercise = EXERCISES["gemm-epilogue.wmma_fp16"]
    case = exercise.tests[0]
    sizes = {}
    for name in ("starter.cu", "reference.cu", "solutions/correct/hopper_wgmma.cu"):
        constants, _, diagnostics = read_constants((exercise.folder / name).read_text(), exercise)
        assert diagnostics == []
        sizes[name] = resolve_launches(exercise.launches, env_for(case, constants))[0].shared_bytes
    assert sizes == {"starter.cu": 0, "reference.cu": 0, "solutions/correct/hopper_wgmma.cu": 196608}
    _, _, diagnostics = read_constants("#define SMEM_BYTES 50000\n", exercise)
    assert [d.line for d in diagnostics] == [1] and "SMEM_BYTES = 50000 is not allowed" in diagnostics[0].message


def test_constants_are_read_from_the_declarations_learners_write():
    """siboehm-style `constexpr int BM = 64, BN = 64;`, `uint32_t`, `auto`, braces (#12)."""
    from kernels.constants import read_constants

    exercise = EXERCISES["gemm-epilogue.fp32"]
    for source, want in [
        ("namespace cfg {\nconstexpr int BM = 64, BN = 32, BK = 16;\n}\n", {"BM": 64, "BN": 32}),
        ("static constexpr uint32_t BM = 16;\nconstexpr auto BN{256};\n", {"BM": 16, "BN": 256}),
        ("__device__ constexpr unsigned int THREADS = 512u;\n", {"THREADS": 512}),
    ]:
        values, defined, diagnostics = read_constants(source, exercise)
        assert diagnostics == [] and {name: values[name] for name in want} == want, source
        assert set(want) <= defined
    _, _, diagnostics = read_constants("constexpr int BK = 8, BM = 2 * 32;\n", exercise)
    assert [d.line for d in diagnostics] == [1] and "BM must be a plain integer literal" in diagnostics[0].message
