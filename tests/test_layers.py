"""The layout holds: the import graph of our packages has no cycle and its arrows point one
way (docs/architecture.md), and a long module says why it is long.

The graph is read from the source with ``ast``: a module's imports at module level (in
class bodies, ``try`` and ``if`` blocks too), but not inside functions and not under
``if TYPE_CHECKING:`` (a type-only import runs nothing). ``from package import name``
is an arrow to the submodule ``package.name`` if there is one, else to ``package``.

The layers, from the bottom:

- ``engine/`` is pure: it imports nothing of ours outside ``engine/``;
- ``bots/`` imports ``engine/`` and itself, never ``league/``, ``api/``, ``web/``, ``config/``;
- ``league/`` never imports ``api/``, ``web/`` or ``config/``; inside it ``league/domain/``
  imports only itself, ``engine/``, the standard library and libraries that are neither
  Django nor a server's client; the selectors (the package league/selectors/, every read
  of the league) never import the services, and the services never import
  ``league/tasks.py`` (they send tasks by name, league/task_names.py);
- ``api/``, ``web/`` and ``config/`` sit on top; the pages may use the API's shared parts
  (its throttles, its read cache), the API never imports the pages.

The rules hold for imports inside functions as well (they point down too).

The pages' views are thin, as the API's are (tests/api/test_thin_views.py): no module of
web/views/ reaches a model's manager or calls a method that builds, runs or writes a query;
they call the selectors (league/selectors/, web/selectors.py) and the services.

An import inside a function that imports a module of ours must say why on its line or
the line above (a comment): such imports were the way around cycles, and what stays has
a reason of its own (the app registry not ready yet, an optional heavy module).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from celery import current_app

import bots.tasks
import league.tasks
from league import task_names
from tests.api.test_thin_views import orm_uses

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "api", "web", "accounts", "league", "bots", "engine")
LONG_MODULE_LINES = 600
LONG_MODULE_MARKER = "Why this module is long:"
"""A module over LONG_MODULE_LINES lines has this sentence in its docstring, followed by
the reason (a game's rules in one place, one algorithm that reads best whole, ...)."""
FRAMEWORKS = (
    "django",
    "rest_framework",
    "drf_spectacular",
    "channels",
    "celery",
    "kombu",
    "asgiref",
    "psycopg",
    "redis",
    "daphne",
    "twisted",
)
"""What the pure domain may not import (nor any ``django_*`` package)."""
READS = ("league.selectors",)
"""The league's read side: the package of selectors, one module per area."""


@dataclass
class Module:
    name: str
    path: Path
    tree: ast.Module
    imports: set[str] = field(default_factory=set)
    """Our modules imported at module level."""
    external: set[str] = field(default_factory=set)
    """The top-level names of other modules imported at module level."""
    in_functions: list[tuple[int, int, str]] = field(default_factory=list)
    """(first line, last line, module) of imports of our modules inside functions: not
    arrows of the graph (they run later), but they must point down too."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files(packages: tuple[str, ...] = PACKAGES) -> Iterator[Path]:
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "__pycache__" not in path.parts:
                yield path


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_names(node: ast.Import | ast.ImportFrom, module: Module) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.name.split(".")
        if module.path.name != "__init__.py":
            package.pop()
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    return [base] + [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"]


class Graph:
    def __init__(self) -> None:
        self.modules = {
            module_name(path): Module(
                module_name(path), path, ast.parse(path.read_text(), str(path))
            )
            for path in source_files()
        }
        for module in self.modules.values():
            self._read(module.tree.body, module, in_function=False)

    def ours(self, name: str) -> str | None:
        """The module of ours that ``name`` (a module, or a name in one) is, or None."""
        while name:
            if name in self.modules:
                return name
            name = name.rpartition(".")[0]
        return None

    def _read(self, body: list[ast.stmt], module: Module, *, in_function: bool) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                self._arrows(node, module, in_function=in_function)
            elif isinstance(node, ast.If) and is_type_checking(node.test):
                self._read(node.orelse, module, in_function=in_function)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self._read(node.body, module, in_function=True)
            else:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.stmt):
                        self._read([child], module, in_function=in_function)
                    elif isinstance(child, ast.ExceptHandler | ast.match_case):
                        self._read(child.body, module, in_function=in_function)

    def _arrows(
        self, node: ast.Import | ast.ImportFrom, module: Module, *, in_function: bool
    ) -> None:
        names = imported_names(node, module)
        targets = {self.ours(name) for name in names} - {None, module.name}
        if isinstance(node, ast.ImportFrom) and len(names) > 1:
            # ``from package import name``: the submodule if it is one, else the package
            submodules = {self.ours(n) for n in names[1:]} - {None}
            if submodules:
                targets = submodules - {module.name}
        if in_function:
            last = node.end_lineno or node.lineno
            module.in_functions += [(node.lineno, last, t) for t in sorted(map(str, targets))]
        else:
            module.imports |= {str(t) for t in targets}
            relative = isinstance(node, ast.ImportFrom) and node.level > 0
            if not targets and names[0] and not relative:
                module.external.add(names[0].split(".")[0])

    def cycles(self) -> list[list[str]]:
        """The strongly connected components of more than one module (Tarjan)."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[list[str]] = []

        def visit(name: str) -> None:
            index[name] = low[name] = len(index)
            stack.append(name)
            on_stack.add(name)
            for target in sorted(self.modules[name].imports):
                if target not in index:
                    visit(target)
                    low[name] = min(low[name], low[target])
                elif target in on_stack:
                    low[name] = min(low[name], index[target])
            if low[name] == index[name]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == name:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

        recursion = sys.getrecursionlimit()
        sys.setrecursionlimit(max(recursion, 10 * len(self.modules)))
        try:
            for name in sorted(self.modules):
                if name not in index:
                    visit(name)
        finally:
            sys.setrecursionlimit(recursion)
        return found

    def arrows(self, *, in_functions: bool = False) -> Iterator[tuple[str, str]]:
        """The graph's arrows; with ``in_functions``, also the imports inside functions."""
        for module in self.modules.values():
            targets = set(module.imports)
            if in_functions:
                targets |= {target for _, _, target in module.in_functions}
            for target in sorted(targets):
                yield module.name, target


@pytest.fixture(scope="module")
def graph() -> Graph:
    return Graph()


def within(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_the_graph_is_read_whole(graph: Graph) -> None:
    """The reading itself: every package is there and the arrows known to exist are found
    (a graph read wrongly would pass every rule below)."""
    assert {name.split(".")[0] for name in graph.modules} == set(PACKAGES)
    arrows = set(graph.arrows())
    assert ("league.tasks", "league.services.matches") in arrows
    assert ("league.services.matches", "league.task_names") in arrows
    assert ("bots.match", "engine.game") in arrows
    assert ("league.selectors.matches", "league.models") in arrows
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from engine.game import Game\n"
    )
    type_only = Module("example", ROOT / "example.py", ast.parse(source))
    graph._read(type_only.tree.body, type_only, in_function=False)
    assert type_only.imports == set()  # under TYPE_CHECKING: no arrow


def test_no_import_cycle(graph: Graph) -> None:
    cycles = graph.cycles()
    assert cycles == [], "\n".join(" <-> ".join(cycle) for cycle in cycles)


def rule_broken(source: str, target: str) -> str | None:
    if within(source, "engine") and not within(target, "engine"):
        return "engine/ is pure: it imports nothing of ours outside engine/"
    if within(source, "bots") and within(target, "league", "accounts", "api", "web", "config"):
        return "bots/ sits below league/, accounts/, api/, web/ and config/"
    if within(source, "league") and within(target, "accounts", "api", "web", "config"):
        return "league/ sits below accounts/, api/, web/ and config/"
    if within(source, "accounts") and within(target, "api", "web", "config"):
        return "accounts/ sits below api/, web/ and config/, which use it"
    if within(source, "api", "web") and within(target, "config"):
        return "config/ wires api/ and web/; they never import it"
    if within(source, "api") and within(target, "web"):
        return "the pages use the API's shared parts (throttles, read cache), never the reverse"
    if within(source, "league.domain") and not within(target, "league.domain", "engine"):
        return "league/domain/ imports only itself and engine/"
    if within(source, *READS) and within(target, "league.services"):
        return "selectors and the reads they use never import the services"
    if within(source, "league.services") and within(target, "league.tasks"):
        return "services send tasks by name (league/task_names.py), never import the tasks"
    return None


def test_arrows_point_down(graph: Graph) -> None:
    broken = [
        f"{source} -> {target}: {reason}"
        for source, target in graph.arrows(in_functions=True)
        if (reason := rule_broken(source, target)) is not None
    ]
    assert broken == [], "\n".join(broken)


def test_the_rules_refuse_what_they_should() -> None:
    assert rule_broken("engine.game", "bots.match")
    assert rule_broken("bots.match", "league.models")
    assert rule_broken("league.models", "web.views")
    assert rule_broken("league.services.tournaments", "config.settings")
    assert rule_broken("league.domain.rotation", "league.models")
    assert rule_broken("league.selectors", "league.services.matches")
    assert rule_broken("league.selectors.standings", "league.services.standings")
    assert rule_broken("league.services.matches", "league.tasks")
    assert rule_broken("api.urls", "config.settings")
    assert rule_broken("api.urls", "web.person_display")
    assert rule_broken("web.urls", "api.read_cache") is None
    assert rule_broken("web.views", "league.models") is None
    assert rule_broken("league.domain.rotation", "engine.game") is None


def test_the_domain_imports_no_framework(graph: Graph) -> None:
    stdlib = sys.stdlib_module_names
    broken = [
        f"{module.name} imports {name}"
        for module in graph.modules.values()
        if within(module.name, "league.domain")
        for name in sorted(module.external)
        if name not in stdlib and (name in FRAMEWORKS or name.startswith("django_"))
    ]
    assert broken == [], "\n".join(broken)


def test_imports_inside_functions_say_why(graph: Graph) -> None:
    unexplained = []
    for module in graph.modules.values():
        lines = module.path.read_text().splitlines()
        for first, last, target in module.in_functions:
            said = any("#" in line for line in lines[first - 1 : last])
            above = first - 2  # the comment may head a run of imports
            while above >= 0 and lines[above].strip().startswith(("from ", "import ")):
                above -= 1
            if not said and not (above >= 0 and lines[above].strip().startswith("#")):
                unexplained.append(f"{module.path.relative_to(ROOT)}:{first} imports {target}")
    assert unexplained == [], "\n".join(unexplained)


def test_every_task_name_is_a_registered_task() -> None:
    assert league.tasks.__name__  # imported: its tasks are registered
    assert bots.tasks.__name__
    names = {value for key, value in vars(task_names).items() if key.isupper()}
    assert names, "league/task_names.py declares the task names"
    assert sorted(names - set(current_app.tasks)) == []


def test_a_long_module_says_why_it_is_long() -> None:
    unexplained = []
    for path in source_files((*PACKAGES, "bench")):
        if "migrations" in path.parts:
            continue  # written by makemigrations
        text = path.read_text()
        lines = text.count("\n")
        if lines > LONG_MODULE_LINES:
            docstring = ast.get_docstring(ast.parse(text)) or ""
            if LONG_MODULE_MARKER not in docstring:
                unexplained.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert unexplained == [], (
        f"over {LONG_MODULE_LINES} lines without {LONG_MODULE_MARKER!r} in the module's "
        "docstring (split it, or say why it stays whole):\n" + "\n".join(unexplained)
    )


WEB_VIEWS = sorted((ROOT / "web" / "views").glob("*.py"))


def test_the_pages_have_their_view_modules() -> None:
    assert {"accounts", "bots", "clubs", "leagues", "matches"} <= {m.stem for m in WEB_VIEWS}


@pytest.mark.parametrize("module", WEB_VIEWS, ids=lambda m: m.name)
def test_no_view_of_the_pages_queries_the_database(module: Path) -> None:
    uses = orm_uses(module.read_text(encoding="utf-8"), filename=str(module))
    assert uses == [], (
        f"web/views/{module.name} queries the database itself ({', '.join(uses)}): "
        "read through league.selectors (or web.selectors), write through the services"
    )
