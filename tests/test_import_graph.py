"""The import graph of `app/` and `kernels/`, read from the source (every import,
function-level ones included): no cycles, and the layers docs/architecture.md
draws. A function-level import is no way around a cycle: it is counted."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("app", "kernels")
# Whatever a route, page or command is built from sits below it: these never import
# upwards (a service that imported a router would tie the database layer to HTTP).
BELOW_THE_ROUTES = ("app.services", "app.security", "app.content", "app.db", "app.models",
                    "app.settings", "app.i18n", "app.i18n_strings", "app.i18n_messages")
ROUTES_AND_ENTRY = ("app.api", "app.pages", "app.admin", "app.main", "app.commands", "app.cli")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """module -> the project's modules it imports."""
    modules = _modules()
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in targets:
                resolved = _resolve(target, modules)
                if resolved and resolved != name:
                    graph[name].add(resolved)
        graph.setdefault(name, set())
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_import_graph_has_no_cycle():
    assert cycles(import_graph()) == []


def test_the_judge_never_imports_the_web():
    bad = sorted((a, b) for a, targets in import_graph().items() for b in targets
                 if a.startswith("kernels") and b.startswith("app"))
    assert bad == []


def test_services_and_what_is_below_them_never_import_routes_or_entry_points():
    bad = sorted((a, b) for a, targets in import_graph().items() for b in targets
                 if _under(a, BELOW_THE_ROUTES) and _under(b, ROUTES_AND_ENTRY))
    assert bad == []


def _external_imports(path: Path) -> set[str]:
    """The top-level names of every package a file imports (function-level ones included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.partition(".")[0])
    return names


def test_security_runs_no_sql():
    # SQL lives in app/services (issue #30): app/security holds cookies, tokens, CSRF,
    # headers and password rules, none of which touch the database
    graph, modules = import_graph(), _modules()
    security = [name for name in modules if _under(name, ("app.security",))]
    assert security, "app/security not found"
    bad = sorted((a, b) for a in security for b in graph[a] if b in ("app.models", "app.db"))
    bad += sorted((a, "sqlalchemy") for a in security if "sqlalchemy" in _external_imports(modules[a]))
    assert bad == []


def test_the_checker_finds_a_cycle_hidden_in_a_function():
    # the rule's own test: a function-level import closing a loop is a cycle
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


# The profiler's layers (kernels/profile/__init__.py): each imports only those before it.
PROFILE_LAYERS = ("kernels.profile.model", "kernels.profile.doc", "kernels.profile.findings",
                  "kernels.profile.emu", "kernels.profile.gpu", "kernels.profile.run")


def test_the_profiler_is_layered():
    graph = import_graph()
    assert set(PROFILE_LAYERS) | {"kernels.profile"} == {m for m in graph if _under(m, ("kernels.profile",))}
    bad = sorted((a, b) for i, a in enumerate(PROFILE_LAYERS) for b in graph[a]
                 if _under(b, ("kernels.profile",)) and (b not in PROFILE_LAYERS[:i]))
    assert bad == []
    # the judge and the web reach it through its entry (and the document's validator, its shape)
    outside = sorted((a, b) for a, targets in graph.items() if not _under(a, ("kernels.profile", "tests"))
                     for b in targets if _under(b, ("kernels.profile",))
                     and b not in ("kernels.profile.run", "kernels.profile.doc", "kernels.profile.model"))
    assert outside == []
