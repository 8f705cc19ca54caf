"""Loading exercise specs: the real block_sum, and errors that name the file and field."""

from pathlib import Path

import pytest

from kernels.spec import SpecError, parse_signature
from kernels.spec_parse import load_spec


def test_block_sum_loads(block_sum):
    assert block_sum.id == "reduction.block_sum"
    assert block_sum.title == {"ko": "블록 합", "en": "Block sum"}
    assert len(block_sum.hints["ko"]) == len(block_sum.hints["en"]) >= 2
    kernel = block_sum.kernel("block_sum")
    assert kernel.declaration() == 'extern "C" __global__ void block_sum(const float* in, float* out, int N);'
    assert [p.name for p in kernel.params] == ["in", "out", "N"]
    launch = block_sum.launches[0]
    assert launch.grid[0].evaluate({"N": 257}) == 2
    assert launch.shared_bytes.evaluate({}) == 32
    sizes = [dict(c.values)["N"] for c in block_sum.tests]
    assert {1, 2, 3, 4}.issubset(sizes) and 1048576 in sizes
    assert any(s & (s - 1) for s in sizes), "needs non-powers of two"
    assert block_sum.benchmark is not None
    assert {b.name for b in block_sum.benchmark.baselines} == {"naive", "framework"}
    assert block_sum.buffer("out").init == "zeros"
    assert block_sum.starter_path.is_file() and block_sum.reference_cu_path.is_file()
    assert set(block_sum.instructions) == {"ko", "en"}


def _edit(folder: Path, old: str, new: str) -> Path:
    spec = folder / "exercise.toml"
    text = spec.read_text()
    assert old in text, old
    spec.write_text(text.replace(old, new, 1))
    return spec


@pytest.mark.parametrize("old, new, field, message", [
    ('grid = "ceil_div(N, 256)"', 'grid = "ceil_div(M, 256)"', "launch[0].grid", "unknown name 'M'"),
    ('dtype = "float32"', 'dtype = "float8"', "buffers[0].dtype", "expected one of"),
    ('role = "in"', 'role = "input"', "buffers[0].role", "expected one of"),
    ('difficulty = "easy"', 'difficulty = "trivial"', "difficulty", "expected one of"),
    ('xp = 50', 'xp = "fifty"', "xp", "expected int"),
    ('args = ["in", "out", "N"]\n\n[check]', 'args = ["in", "out"]\n\n[check]', "launch[0].args",
     "takes 3 arguments"),
    ('args = ["in", "out", "N"]\n\n[check]', 'args = ["N", "out", "N"]\n\n[check]', "launch[0].args[0]",
     "expected a buffer name"),
    ('signature = "const float* in, float* out, int N"', 'signature = "const float* in, float** out, int N"',
     "kernels[0].signature", "single pointers"),
    ('kernel = "block_sum"\n', 'kernel = "block_summ"\n', "launch[0].kernel", "not declared"),
    ('sizes = [1, 2, 3,', 'sizes = [0, 2, 3,', "tests.sizes[0].N", "integer >= 1"),
    ('rtol = 1e-5', 'rtol = -1.0', "check", ">= 0"),
    ('compile_s = 15', 'compile_s = 0', "limits.compile_s", "> 0"),
    ('shared_bytes = "8 * 4"', 'shared_bytes = "8 * open"', "launch[0].shared_bytes", "unknown name"),
    ('shared_bytes = "8 * 4"', 'shared_bytes = "__import__(1)"', "launch[0].shared_bytes", "may be called"),
    ('source = "baselines/naive.cu"', 'source = "baselines/missing.cu"', "benchmark.baselines.naive.source",
     "file not found"),
    ('id = "reduction.block_sum"', 'id = "block_sum"', "id", "expected '<lesson>.<name>'"),
    ('id = "reduction.block_sum"', 'colour = "red"\nid = "reduction.block_sum"', "colour", "unknown field"),
    ('[check]', 'colour = "red"\n[check]', "launch[0].colour", "unknown field"),
])
def test_malformed_spec_names_file_and_field(scratch_exercise, old, new, field, message):
    spec = _edit(scratch_exercise, old, new)
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    assert caught.value.field == field
    assert message in caught.value.message
    assert str(caught.value).startswith(f"{spec.resolve()}: {field}: ")


def test_hints_must_have_the_same_count(scratch_exercise):
    spec = _edit(scratch_exercise, '"Add the block\'s result once, with atomicAdd(out, sum): many blocks '
                 'write out[0] at the same time.",\n', "")
    with pytest.raises(SpecError, match="hints: ko and en must have the same number"):
        load_spec(spec)


def test_invalid_toml_names_the_file(scratch_exercise):
    spec = scratch_exercise / "exercise.toml"
    spec.write_text("id = \n")
    with pytest.raises(SpecError, match="invalid TOML") as caught:
        load_spec(spec)
    assert caught.value.path == str(spec.resolve())


def test_missing_reference_py(scratch_exercise):
    (scratch_exercise / "reference.py").unlink()
    with pytest.raises(SpecError, match="reference.py: file not found"):
        load_spec(scratch_exercise / "exercise.toml")


def test_missing_file():
    with pytest.raises(SpecError, match="file not found"):
        load_spec("/nonexistent/exercise.toml")


def test_constants_and_general_cases(scratch_exercise):
    spec = _edit(scratch_exercise, "[[buffers]]", "[constants.BLOCK_SIZE]\ndefault = 256\n"
                 "choices = [128, 256]\n\n[[buffers]]")
    _edit(scratch_exercise, 'grid = "ceil_div(N, 256)"', 'grid = "ceil_div(N, BLOCK_SIZE)"')
    _edit(scratch_exercise, "sizes = [1, 2, 3,", "cases = [{ N = 7, data = \"ones\" }]\n# sizes = [1, 2, 3,")
    exercise = load_spec(spec)
    assert exercise.constants[0].choices == (128, 256)
    assert exercise.tests[0].label == "n=7 data=ones"
    assert exercise.launches[0].grid[0].evaluate({"N": 300, "BLOCK_SIZE": 128}) == 3


def test_constant_default_must_be_a_choice(scratch_exercise):
    spec = _edit(scratch_exercise, "[[buffers]]", "[constants.BLOCK_SIZE]\ndefault = 100\n"
                 "choices = [128, 256]\n\n[[buffers]]")
    with pytest.raises(SpecError, match="constants.BLOCK_SIZE.default: 100 is not one of"):
        load_spec(spec)


@pytest.mark.parametrize("signature, expected", [
    ("const float* in, float* out, int N", [("in", "float", True, True), ("out", "float", True, False),
                                              ("N", "int", False, False)]),
    ("const __half* __restrict__ x, unsigned int n", [("x", "__half", True, True),
                                                       ("n", "unsigned int", False, False)]),
])
def test_parse_signature(signature, expected):
    assert [(p.name, p.ctype, p.pointer, p.const) for p in parse_signature(signature)] == expected


@pytest.mark.parametrize("signature", ["", "const float* a, int a", "struct S* s", "int", "float x,"])
def test_parse_signature_refuses(signature):
    with pytest.raises(ValueError):
        parse_signature(signature)


TRITON = '''
[triton]
hints = { ko = ["블록마다 한 번 더합니다."], en = ["Add once per block."] }
rtol = 1e-4

[[triton.launch]]
kernel = "block_sum"
args = ["in", "out", "N"]
'''


def test_triton_section(scratch_exercise):
    spec = scratch_exercise / "exercise.toml"
    assert load_spec(spec).languages == ("cuda",) and load_spec(spec).triton is None
    spec.write_text(spec.read_text() + TRITON)
    exercise = load_spec(spec)
    assert exercise.languages == ("cuda", "triton")
    launch = exercise.triton.launches[0]
    assert launch.kernel == "block_sum"
    assert [a.buffer for a in launch.args] == ["in", "out", None]
    assert launch.args[2].param.ctype == "auto" and launch.args[2].expr.source == "N"
    assert exercise.triton.hints["en"] == ("Add once per block.",)
    assert exercise.triton.rtol == 1e-4 and exercise.triton.atol is None


@pytest.mark.parametrize("old, new, field, message", [
    ('args = ["in", "out", "N"]\n\'\'\'', 'args = ["in", "out", "M"]', "triton.launch[0].args[2]", "unknown name 'M'"),
    ('kernel = "block_sum"', 'kernel = "block-sum"', "triton.launch[0].kernel", "Python function name"),
    ('rtol = 1e-4', 'rtol = -1.0', "triton.rtol", ">= 0"),
    ('rtol = 1e-4', 'colour = 1', "triton.colour", "unknown field"),
    ('en = ["Add once per block."]', 'en = []', "triton.hints", "same number"),
])
def test_malformed_triton_section(scratch_exercise, old, new, field, message):
    spec = scratch_exercise / "exercise.toml"
    spec.write_text(spec.read_text() + TRITON.replace(old.replace("\n'''", ""), new.replace("\n'''", "")))
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    assert caught.value.field == field, caught.value
    assert message in caught.value.message
