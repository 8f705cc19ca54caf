import pytest

from kernels.expr import ExprError, parse


@pytest.mark.parametrize("source, env, expected", [
    ("ceil_div(N, 256)", {"N": 1}, 1),
    ("ceil_div(N, 256)", {"N": 257}, 2),
    ("8 * 4", {}, 32),
    ("next_pow2(N)", {"N": 1000}, 1024),
    ("min(N, 1024) if N > 4 else 4", {"N": 3}, 4),
    ("max(a, b) // 2 + a % 3 - 2 ** 3", {"a": 10, "b": 7}, 5 + 1 - 8),
    ("N > 3 and N < 10", {"N": 5}, True),
    ("not N", {"N": 0}, True),
    ("-N", {"N": 4}, -4),
])
def test_evaluates(source, env, expected):
    assert parse(source).evaluate(env) == expected


def test_names_are_the_free_variables():
    assert parse("ceil_div(rows * cols, BLOCK_SIZE)").names == {"rows", "cols", "BLOCK_SIZE"}


@pytest.mark.parametrize("source", [
    "__import__('os')", "N.real", "N[0]", "lambda: 1", "open('x')", "'text'", "[1, 2]",
    "N if", "f(N)", "N @ N", "N << 2", "True",
])
def test_refuses_anything_but_arithmetic(source):
    with pytest.raises(ExprError):
        parse(source)


def test_unknown_name_at_evaluation():
    with pytest.raises(ExprError, match="unknown name 'M'"):
        parse("M + 1").evaluate({"N": 1})


def test_huge_values_are_refused():
    with pytest.raises(ExprError):
        parse("2 ** 100").evaluate({})
    with pytest.raises(ExprError):
        parse("N ** N").evaluate({"N": 10**6})


def test_evaluate_int_refuses_fractions():
    assert parse("N / 2").evaluate_int({"N": 8}) == 4
    with pytest.raises(ExprError, match="not an integer"):
        parse("N / 2").evaluate_int({"N": 7})


def test_division_by_zero_is_an_expr_error():
    with pytest.raises(ExprError):
        parse("N // 0").evaluate({"N": 1})
    with pytest.raises(ExprError):
        parse("ceil_div(N, 0)").evaluate({"N": 1})
