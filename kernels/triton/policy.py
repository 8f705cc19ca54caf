"""What Python of a Triton file may run beside the judge's buffers (#29): read from its syntax tree.

On the CPU target Triton's interpreter runs a `@triton.jit` function as plain Python in the
server that holds the case's buffers (kernels/triton/interp_server.py), and the server imports
the file there first. Python has no walls inside a process: a kernel that reaches its pointer's
`.handle`, `__import__` or a plain Python helper, or a file whose import rebinds a module the
server uses, could compute the answer with numpy over the buffers' memory and be accepted
without a kernel. So, before anything of the file runs anywhere (kernels/triton/compile.py,
for both targets, so that a file gets one verdict):

* **When the file is imported** only this runs: imports (`triton`, `triton.language`, `math`:
  compile.py's own rule), function definitions whose decorators, defaults and annotations are
  constant expressions (`@triton.jit`, `@triton.jit(...)` with constant arguments), constant
  assignments to plain names (`BLOCK = tl.constexpr(128)`, `N_MAX = triton.next_power_of_2(4096)`),
  a docstring and an `if __name__ == "__main__":` block (which never runs in the judge).
  A constant expression is made of literals, names, arithmetic, comparisons, tuples, lists,
  dicts, subscripts, attributes of the imported modules, and calls of `tl.constexpr`,
  `triton.cdiv`, `triton.next_power_of_2`, `math.*` and a few builtins (`int`, `float`, `min` …);
  no other builtin by name (`PEEK = getattr` would hand a kernel `getattr`).
  Everything else in a file (`launch_K`'s body, a helper's) runs only in the compile step's
  sandbox, whose answer the judge checks as data.
* **In a `@triton.jit` function**: no nested function, lambda, class, comprehension, import, `global`,
  `nonlocal`, `try`, `with`, `yield` or `await`; a name is a parameter, a local, a module-level
  constant, import or `@triton.jit` function, or one of Triton's kernel builtins (`range`, `len`,
  `min`, `max`, `print`, `int`, `float`, `list`, `isinstance`), never another Python builtin
  (`getattr`, `open`, `__import__` …) or a dunder name (one defined nowhere is Triton's NameError); no
  attribute starting with `_`, no `.handle` (the interpreter's value behind a tensor) and no
  attribute naming a module outside the language (`builtins`, `inspect`, `knobs` …, and of
  `triton` only `language`, `cdiv`, `next_power_of_2`, `jit`). Triton's front end refuses most
  of this when it compiles, but only on the branch it compiles: `if hasattr(x.handle, "data"):`
  is false there and true in the interpreter.

`@triton.autotune(configs=[triton.Config(...)], key=[...])` may stand above a kernel's
`@triton.jit` with constant arguments (no pruning or hook functions): the judge compiles and times
its first config. A refusal is the learner's `rejected` on the construct's line
(`triton_module_code`, `triton_kernel_code`; `triton_tuner` for `@triton.heuristics`, which the
judge does not run: the values are computed in `launch_K`). Only the standard library is imported here.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

# Triton's kernel builtins (triton/compiler/code_generator.py builtin_namespace), less getattr/hasattr
KERNEL_BUILTINS = frozenset({"range", "len", "min", "max", "print", "int", "float", "list", "isinstance"})
CONSTANT_BUILTINS = frozenset({"int", "float", "bool", "str", "min", "max", "abs", "round", "len", "range",
                               "tuple", "list", "dict", "sum", "pow", "divmod", "True", "False", "None"})
CONSTANT_CALLS = frozenset({"triton.cdiv", "triton.next_power_of_2", "triton.language.constexpr",
                            "triton.language.core.constexpr", "triton.Config"})
DECORATORS = frozenset({"triton.jit", "triton.runtime.jit.jit"})
# `@triton.autotune(configs=[triton.Config(...), …], key=[…])` above a kernel's `@triton.jit`, its
# arguments constant expressions (no pruning or hook functions): the judge compiles and times the
# first config (kernels/triton/compile_child.py)
AUTOTUNE = "triton.autotune"
# Triton's heuristics: Python of the learner's run on the kernel's arguments at each launch (on the
# CPU target those are the interpreter's buffers); a learner who writes one is told where the choice
# goes instead (`triton_tuner`)
HEURISTICS = frozenset({"triton.heuristics", "triton.runtime.heuristics", "triton.runtime.autotuner.heuristics"})
TRITON_NAMES = frozenset({"language", "cdiv", "next_power_of_2", "jit"})  # triton.<name> a kernel may use
MODULE_TRITON_NAMES = TRITON_NAMES | {"autotune", "Config"}  # … and the file's top level
# attribute names that lead out of the language: the modules reachable from `triton.language` and a
# tensor through public attributes in Triton 3.6 (builtins, inspect, knobs, ir, pkgutil, typing,
# semantic's warnings and numbers), the interpreter's value behind a tensor, and the usual escapes
DENIED_ATTRIBUTES = frozenset({
    "handle", "builtins", "inspect", "ir", "knobs", "pkgutil", "typing", "np", "numpy", "os", "sys", "runtime",
    "compiler", "backends", "tools", "testing", "interpreter", "ctypes", "gc", "importlib", "subprocess", "io",
    "signal", "socket", "mmap", "errors", "types", "functools", "weakref", "threading", "traceback", "warnings",
    "numbers", "linecache", "operator",
})
PYTHON_BUILTINS = frozenset(dir(builtins))  # open, getattr, __import__, type, eval …: the interpreter has them all
CONSTRUCT_CHARS = 80


class Refused(Exception):
    def __init__(self, node: ast.AST, where: str, construct: str, kernel: str = "") -> None:
        super().__init__(construct)
        self.line = getattr(node, "lineno", 0) or 0
        self.column = (getattr(node, "col_offset", 0) or 0) + 1
        self.where = where  # "module" | "kernel"
        self.construct = construct
        self.kernel = kernel


@dataclass(frozen=True)
class Refusal:
    line: int
    column: int
    where: str  # "module" | "kernel" | "tuner" (construct: the tuner, kernel: the function it decorates)
    construct: str
    kernel: str


def check(tree: ast.Module) -> Refusal | None:
    """The first construct of `tree` (a parsed Triton file) that may not run in the judge, or None."""
    try:
        _Module(tree).check()
    except Refused as exc:
        return Refusal(exc.line, exc.column, exc.where, exc.construct, exc.kernel)
    except RecursionError:  # a nesting the parser took and a walk cannot: nothing legitimate
        return Refusal(0, 0, "module", "a deeply nested expression", "")
    return None


def _snippet(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 — an odd node: its type's name
        text = type(node).__name__
    text = " ".join(text.split())
    return text if len(text) <= CONSTRUCT_CHARS else text[:CONSTRUCT_CHARS - 1] + "…"


class _Module:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.aliases: dict[str, str] = {}  # local name → module or object it imports ("tl" → "triton.language")
        self.constants: set[str] = set()
        self.kernels: set[str] = set()
        self.plain: set[str] = set()  # functions without @triton.jit
        for node in tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        self.aliases[head] = head
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.FunctionDef):
                (self.kernels if any(self._is_jit(d) for d in node.decorator_list) else self.plain).add(node.name)

    # -- the file's top level ------------------------------------------------------------

    def check(self) -> None:
        for index, node in enumerate(self.tree.body):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and index == 0:
                continue  # the docstring
            if isinstance(node, ast.FunctionDef):
                self._definition(node)
                continue
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                self._assignment(node)
                continue
            if isinstance(node, ast.If) and self._is_main_guard(node.test):
                continue  # never runs in the judge: the module is not __main__
            raise Refused(node, "module", _snippet(node))

    def _is_main_guard(self, test: ast.expr) -> bool:
        return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
                and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == "__main__")

    def _assignment(self, node: ast.Assign | ast.AnnAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            for name in (target.elts if isinstance(target, ast.Tuple) else [target]):
                if not isinstance(name, ast.Name) or name.id.startswith("__"):
                    raise Refused(name, "module", _snippet(node))
                self.constants.add(name.id)
        if isinstance(node, ast.AnnAssign):
            self._constant(node.annotation)
        if node.value is not None:
            self._constant(node.value)

    def _definition(self, node: ast.FunctionDef) -> None:
        jit = node.name in self.kernels
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            autotune = jit and isinstance(decorator, ast.Call) and self.qualified(target) == AUTOTUNE
            if not self._is_jit(decorator) and not autotune:
                if self.qualified(target) in HEURISTICS:
                    raise Refused(decorator, "tuner", "triton.heuristics", node.name)
                raise Refused(decorator, "module", "@" + _snippet(decorator))
            if isinstance(decorator, ast.Call):
                for value in [*decorator.args, *(k.value for k in decorator.keywords)]:
                    self._constant(value)
        args = node.args
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self._constant(default)
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and arg.annotation is not None:
                self._constant(arg.annotation)
        if node.returns is not None:
            self._constant(node.returns)
        if jit:
            _Kernel(self, node).check()

    def _is_jit(self, decorator: ast.expr) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return self.qualified(target) in DECORATORS

    def qualified(self, node: ast.expr) -> str | None:
        """`tl.float32` → "triton.language.float32" (None: not a chain from an import)."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        return ".".join([self.aliases[node.id], *reversed(parts)])

    def attribute(self, node: ast.Attribute, where: str, kernel: str = "") -> None:
        if node.attr.startswith("_") or node.attr in DENIED_ATTRIBUTES:
            raise Refused(node, where, _snippet(node), kernel)
        name = self.qualified(node)
        if name is not None and name.startswith("triton.") and not name.startswith("triton.language"):
            if name.split(".")[1] not in (MODULE_TRITON_NAMES if where == "module" else TRITON_NAMES):
                raise Refused(node, where, _snippet(node), kernel)

    def _constant(self, node: ast.expr) -> None:
        """A constant expression of the file's top level (a value, a default, an annotation)."""
        for child in ast.walk(node):
            if isinstance(child, ast.Call):
                callee = self.qualified(child.func)
                builtin = isinstance(child.func, ast.Name) and child.func.id in CONSTANT_BUILTINS \
                    and child.func.id not in self.aliases and child.func.id not in self.constants \
                    and child.func.id not in self.plain and child.func.id not in self.kernels
                if not (builtin or callee in CONSTANT_CALLS or (callee or "").startswith("math.")):
                    raise Refused(child, "module", _snippet(child))
            elif isinstance(child, ast.Attribute):
                self.attribute(child, "module")
            elif isinstance(child, ast.Name):
                defined = child.id in self.aliases or child.id in self.constants or child.id in self.kernels
                builtin = child.id in PYTHON_BUILTINS and child.id not in CONSTANT_BUILTINS and not defined
                if child.id.startswith("__") or child.id in self.plain or builtin:  # G = getattr: a kernel's G(…)
                    raise Refused(child, "module", _snippet(child))
            elif not isinstance(child, _CONSTANT_NODES):
                raise Refused(child, "module", _snippet(child))


_CONSTANT_NODES = (ast.Constant, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Tuple, ast.List,
                   ast.Dict, ast.Subscript, ast.Slice, ast.keyword, ast.Load, ast.operator, ast.unaryop, ast.boolop,
                   ast.cmpop, ast.expr_context)
_KERNEL_REFUSED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Import, ast.ImportFrom,
                   ast.Global, ast.Nonlocal, ast.Try, ast.With, ast.AsyncWith, ast.Yield, ast.YieldFrom, ast.Await,
                   ast.Delete, ast.NamedExpr, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp,
                   ast.AsyncFor, ast.Starred)


class _Kernel:
    def __init__(self, module: _Module, node: ast.FunctionDef) -> None:
        self.module, self.node = module, node
        args = node.args
        self.locals = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
                       if a is not None}
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                self.locals.add(child.id)

    def check(self) -> None:
        m, kernel = self.module, self.node.name
        for statement in self.node.body:
            for child in ast.walk(statement):
                if isinstance(child, _KERNEL_REFUSED) and not (isinstance(child, ast.Starred)
                                                              and isinstance(child.ctx, ast.Load)):
                    raise Refused(child, "kernel", _snippet(child), kernel)
                if isinstance(child, ast.Attribute):
                    m.attribute(child, "kernel", kernel)
                elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                    name = child.id
                    if name in self.locals or name in m.kernels or name in m.constants:
                        continue
                    if name in m.aliases:
                        target = m.aliases[name]
                        if target.startswith("triton.") and not target.startswith("triton.language") \
                                and target.split(".")[1] not in TRITON_NAMES:
                            raise Refused(child, "kernel", name, kernel)
                        continue
                    if name in KERNEL_BUILTINS and name not in m.plain:
                        continue
                    if name.startswith("__") or name in PYTHON_BUILTINS or name in m.plain:
                        raise Refused(child, "kernel", name, kernel)
                    # a name defined nowhere: Triton's NameError, the learner's compile_error
