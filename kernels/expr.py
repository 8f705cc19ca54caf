"""A tiny, safe evaluator for launch-plan expressions (grid, block, shapes, byte models).

Only arithmetic over named integers/floats is evaluated: `+ - * // / % **`,
parentheses, comparisons, `and`/`or`/`not`, `a if c else b`, and the
functions `ceil_div`, `min`, `max`, `next_pow2`. Anything else (attributes,
subscripts, lambdas, unknown names) is refused when the spec is loaded, so an
exercise author gets the error, not a learner.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from typing import Any, Callable

Number = int | float

# Bound on magnitudes so a typo like `2 ** N` cannot hang the judge.
_MAX_ABS = 2**63


class ExprError(ValueError):
    """An expression that does not parse, uses something not allowed, or fails to evaluate."""


def _ceil_div(a: Number, b: Number) -> int:
    if b == 0:
        raise ExprError("ceil_div by zero")
    return -(-int(a) // int(b))


def _next_pow2(a: Number) -> int:
    a = int(a)
    return 1 if a <= 1 else 1 << (a - 1).bit_length()


FUNCTIONS: dict[str, Callable[..., Number]] = {
    "ceil_div": _ceil_div,
    "min": min,
    "max": max,
    "next_pow2": _next_pow2,
}

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Div: operator.truediv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}


@dataclass(frozen=True)
class Expr:
    """A parsed expression. `names` are the free variables it reads."""

    source: str
    tree: ast.Expression
    names: frozenset[str]

    def evaluate(self, env: dict[str, Number]) -> Number:
        """Evaluate with `env` (name → number). Raises ExprError."""
        try:
            return _eval(self.tree.body, env)
        except ExprError:
            raise
        except (ArithmeticError, ValueError, TypeError) as exc:
            raise ExprError(f"{self.source!r}: {exc}") from None

    def evaluate_int(self, env: dict[str, Number]) -> int:
        value = self.evaluate(env)
        if isinstance(value, float):
            if not value.is_integer():
                raise ExprError(f"{self.source!r} = {value} is not an integer")
            value = int(value)
        return int(value)


def parse(source: str | int | float) -> Expr:
    """Parse an expression (a number is accepted as its own expression)."""
    if isinstance(source, bool):
        raise ExprError("a boolean is not an expression")
    text = repr(source) if isinstance(source, (int, float)) else str(source)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"cannot parse {text!r}: {exc.msg}") from None
    names: set[str] = set()
    for node in ast.walk(tree):
        _validate(node, names)
    return Expr(text, tree, frozenset(names))


def _validate(node: ast.AST, names: set[str]) -> None:
    allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.BoolOp,
               ast.Call, ast.Name, ast.Constant, ast.Load, ast.operator, ast.unaryop,
               ast.cmpop, ast.boolop)
    if not isinstance(node, allowed):
        raise ExprError(f"{type(node).__name__} is not allowed in an expression")
    if isinstance(node, ast.BinOp) and type(node.op) not in _BINOPS:
        raise ExprError(f"operator {type(node.op).__name__} is not allowed")
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        raise ExprError(f"operator {type(node.op).__name__} is not allowed")
    if isinstance(node, ast.Compare) and any(type(op) not in _CMPOPS for op in node.ops):
        raise ExprError("only < <= > >= == != comparisons are allowed")
    if isinstance(node, ast.Constant) and (
            isinstance(node.value, bool) or not isinstance(node.value, (int, float))):
        raise ExprError(f"constant {node.value!r} is not a number")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise ExprError("only ceil_div, min, max, next_pow2 may be called")
        if node.keywords:
            raise ExprError("keyword arguments are not allowed")
    if isinstance(node, ast.Name) and node.id not in FUNCTIONS:
        names.add(node.id)


def _eval(node: ast.AST, env: dict[str, Number]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise ExprError(f"unknown name {node.id!r}")
        return env[node.id]
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, env), _eval(node.right, env)
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise ExprError("exponent larger than 64")
        return _bounded(_BINOPS[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            return not value
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, env)
            if not _CMPOPS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, env) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.IfExp):
        return _eval(node.body, env) if _eval(node.test, env) else _eval(node.orelse, env)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return _bounded(FUNCTIONS[node.func.id](*(_eval(a, env) for a in node.args)))
    raise ExprError(f"{type(node).__name__} is not allowed")  # unreachable after parse()


def _bounded(value: Any) -> Any:
    if isinstance(value, (int, float)) and abs(value) >= _MAX_ABS:
        raise ExprError("value out of range")
    return value
