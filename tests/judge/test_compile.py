"""Real NVRTC (from the nvidia-cuda-nvrtc wheel): diagnostics on learner lines, policy, signatures."""

import pytest

from kernels.compile import compile_submission
from kernels.nvrtc import candidate_paths, load

from .conftest import BLOCK_SUM

GOOD = (BLOCK_SUM / "reference.cu").read_text()


def test_nvrtc_is_found():
    assert candidate_paths()
    assert load().version[0] >= 12


def test_reference_compiles_to_ptx_without_a_gpu(block_sum):
    result = compile_submission(GOOD, block_sum)
    assert result.ok and result.status == "ok"
    assert b".entry block_sum" in result.ptx
    assert result.diagnostics == []
    assert result.seconds < 15


def test_cubin_for_an_sm_target(block_sum):
    result = compile_submission(GOOD, block_sum, arch="sm_90")
    assert result.ok and result.cubin.startswith(b"\x7fELF")


def test_syntax_error_points_at_the_learner_line_and_column(block_sum):
    source = ('extern "C" __global__ void block_sum(const float* in, float* out, int N) {\n'
              "    float v = in[0]\n"
              "    out[0] = v;\n"
              "}\n")
    result = compile_submission(source, block_sum)
    assert result.status == "compile_error"
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert errors[0].line == 3 and errors[0].column == 5
    assert 'expected a ";"' in errors[0].message
    assert "submission.cu(3): error" in result.log


def test_undefined_name(block_sum):
    source = GOOD.replace("atomicAdd(out, v);", "atomicAdd(out, total);")
    result = compile_submission(source, block_sum)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "total" in text)
    assert result.status == "compile_error"
    assert any(d.line == line and "total" in d.message for d in result.diagnostics)


def test_wrong_signature_is_a_compile_error_with_the_required_declaration(block_sum):
    source = GOOD.replace("const float* in", "float* in")
    result = compile_submission(source, block_sum)
    assert result.status == "compile_error"
    (diag,) = [d for d in result.diagnostics if d.severity == "error"]
    assert 'extern "C" __global__ void block_sum(const float* in, float* out, int N)' in diag.message
    assert diag.line == next(i for i, t in enumerate(source.splitlines(), 1) if "block_sum(" in t)


def test_missing_kernel(block_sum):
    result = compile_submission('extern "C" __global__ void other(int* p) { p[0] = 1; }\n', block_sum)
    assert result.status == "compile_error"
    assert "kernel 'block_sum' is not defined" in result.diagnostics[0].message


def test_forbidden_include_is_rejected_before_nvrtc_reads_it(block_sum, tmp_path):
    secret = tmp_path / "secret.h"
    secret.write_text("TOP SECRET CONTENT\n")
    result = compile_submission(f'#include "{secret}"\n' + GOOD, block_sum)
    assert result.status == "rejected"
    assert "TOP SECRET" not in result.log and str(tmp_path) not in result.log
    assert result.diagnostics[0].line == 1


def test_allowed_includes_compile(block_sum):
    source = "#include <cuda_fp16.h>\n#include <cooperative_groups.h>\n" + GOOD
    result = compile_submission(source, block_sum)
    assert result.ok, result.log


def test_warnings_do_not_fail_and_keep_lines(block_sum):
    source = GOOD.replace("    int lane = threadIdx.x % 32;", "    int unused = 3;\n    int lane = threadIdx.x % 32;")
    result = compile_submission(source, block_sum)
    assert result.ok
    (warning,) = [d for d in result.diagnostics if d.severity == "warning"]
    assert warning.line == next(i for i, t in enumerate(source.splitlines(), 1) if "unused" in t)


def test_starter_compiles_and_each_solution_too(block_sum):
    for path in [BLOCK_SUM / "starter.cu", *sorted(BLOCK_SUM.glob("solutions/*/*.cu"))]:
        assert compile_submission(path.read_text(), block_sum).ok, path


def test_oversized_source_is_rejected(block_sum):
    assert compile_submission("//" + "x" * 300_000 + "\n", block_sum).status == "rejected"


def test_header_errors_never_quote_header_lines(block_sum):
    # a mistake that surfaces inside a CUDA header: report it without its text
    source = "#define __half int\n#include <cuda_fp16.h>\n" + GOOD
    result = compile_submission(source, block_sum)
    assert result.status == "compile_error"
    assert any("in CUDA header 'cuda_fp16.h'" in d.message for d in result.diagnostics)
    for line in result.log.splitlines():
        assert line.startswith("submission.cu") or line.endswith('compilation of "submission.cu".') \
            or line == "Compilation terminated.", line


@pytest.fixture
def with_block_size(scratch_exercise):
    from kernels.spec_parse import load_spec

    spec = scratch_exercise / "exercise.toml"
    text = spec.read_text().replace("[[buffers]]", "[constants.BLOCK_SIZE]\ndefault = 256\n"
                                    "choices = [128, 256]\n\n[[buffers]]", 1)
    spec.write_text(text)
    return load_spec(spec)


def test_constant_default_is_passed_as_a_define(with_block_size):
    source = GOOD.replace("int warps = blockDim.x / 32;", "int warps = BLOCK_SIZE / 32;")
    result = compile_submission(source, with_block_size)
    assert result.ok, result.log
    assert result.constants == {"BLOCK_SIZE": 256}


def test_constant_from_source(with_block_size):
    source = "#define BLOCK_SIZE 128\n" + GOOD
    assert compile_submission(source, with_block_size).constants == {"BLOCK_SIZE": 128}
    source = "constexpr int BLOCK_SIZE = 128;\n" + GOOD
    assert compile_submission(source, with_block_size).constants == {"BLOCK_SIZE": 128}


def test_constant_outside_its_choices(with_block_size):
    result = compile_submission("\n#define BLOCK_SIZE 100\n" + GOOD, with_block_size)
    assert result.status == "compile_error"
    assert result.diagnostics[0].line == 2
    assert "BLOCK_SIZE = 100 is not allowed" in result.diagnostics[0].message


def test_constant_that_is_not_a_literal(with_block_size):
    result = compile_submission("#define BLOCK_SIZE (64 * 2)\n" + GOOD, with_block_size)
    assert result.status == "compile_error"
    assert "plain integer literal" in result.diagnostics[0].message
