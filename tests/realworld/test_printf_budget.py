"""Device printf behind the judge's per-run budget (#12): a correct kernel that
prints from every thread of a 2^20-element grid ran past the time limit on an
H100 (bench/printf_cost.py); the prelude lets the first KDOJO_PRINTF_BUDGET
calls of a test case print and makes the others return at once."""

import re
from pathlib import Path

import pytest

from kernels.nvrtc import compile_program

OPTIONS = ["-std=c++17", "--gpu-architecture=compute_90"]
KERNELS = Path(__file__).parent / "kernels"

FORMS = {
    "no arguments": 'printf("hello\\n");',
    "several arguments": 'printf("%d %u %f %s %c\\n", i, 7u, 1.5, "s", (int)\'c\');',
    "std:: qualified": 'std::printf("%d\\n", i);',
    "as an expression": 'int written = printf("%d\\n", i); if (written < 0) out[0] = 0.0f;',
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_printf_forms_learners_write_compile_behind_the_budget(form):
    source = ("#include <cstdio>\n"
              'extern "C" __global__ void k(float* out) {\n'
              "    int i = threadIdx.x;\n"
              f"    {FORMS[form]}\n"
              "}\n")
    out = compile_program(source, "k.cu", OPTIONS)
    assert out.ok, out.log
    ptx = out.ptx.decode()
    # every call counts itself against the budget before it may print
    counter = re.search(r"mov\.u64\s+(%rd\d+), kdojo_printf_calls;", ptx)
    assert counter, ptx[:2000]
    assert re.search(rf"atom\.global\.add\.u32\s+%r\d+, \[{counter.group(1)}\], 1;", ptx), ptx[:2000]
    assert "vprintf" in ptx


def test_the_budget_can_only_be_lifted_by_the_judge_build():
    """KDOJO_NO_PRINTF_BUDGET (bench/printf_cost.py's plain build) is read by the
    pre-included prelude, before the learner's first line: a learner's own
    #define comes too late and changes nothing."""
    source = ("#define KDOJO_NO_PRINTF_BUDGET 1\n#include <cstdio>\n"
              'extern "C" __global__ void k() { printf("%d\\n", (int)threadIdx.x); }\n')
    out = compile_program(source, "k.cu", OPTIONS)
    assert out.ok, out.log
    assert "kdojo_printf_calls" in out.ptx.decode()


@pytest.mark.gpu
def test_a_kernel_printing_from_every_thread_is_judged_within_the_case_limit():
    from kernels.judge import Judge

    source = (KERNELS / "block_sum_printf_every_thread.cu").read_text()
    with Judge(backend="cuda") as judge:
        result = judge.run(source, "reduction.block_sum", bench=False)
    assert result["verdict"] == "accepted", result["message"]
    largest = result["tests"][-1]
    assert largest["status"] == "pass"
    assert "thread" in largest["output"]  # the first calls printed
    assert result["timings"]["test_s"] < 10.0
