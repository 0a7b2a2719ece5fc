"""The API's views are thin: no module of api/ touches the database itself.

What this enforces: no module of the api/ package (views, serializers, fields, throttles,
everything) reaches a model's manager (``Model.objects``) or calls a method that builds,
runs or writes a query: ``filter``, ``exclude``, ``select_related``, ``annotate``,
``refresh_from_db``, ``save``... (ORM_METHODS below). Reads go through league.selectors and
writes through league.services; a view parses the request, calls them and serializes what
they return. Reading a relation that a selector has already loaded (``match.seats.all()``
after a prefetch, ``invitation.club.name`` after select_related) is allowed: ``all`` and
attribute access to a relation are not on the list.

The check reads each module's syntax tree (ast), so it sees every spelling of the call,
also in a nested serializer or a helper function, and none in comments or strings.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

API = Path(__file__).resolve().parents[2] / "api"

ORM_METHODS = frozenset(
    {
        "objects",
        "filter",
        "exclude",
        "select_related",
        "prefetch_related",
        "select_for_update",
        "annotate",
        "aggregate",
        "values_list",
        "order_by",
        "distinct",
        "get_or_create",
        "update_or_create",
        "bulk_create",
        "bulk_update",
        "refresh_from_db",
        "save",
        "full_clean",
        "raw",
        "extra",
    }
)
"""Attribute names that mean a query (or a manager to make one) in Django's ORM and that
nothing else in api/ is called: a dict's ``get``/``update``/``values`` are left out, as is a
list's ``count``."""


def orm_uses(source: str, filename: str = "<source>") -> list[str]:
    """Every use of an ORM attribute in ``source``, as ``line: name``."""
    found = [
        (node.lineno, node.end_col_offset or 0, node.attr)
        for node in ast.walk(ast.parse(source, filename=filename))
        if isinstance(node, ast.Attribute) and node.attr in ORM_METHODS
    ]
    return [f"{line}: .{name}" for line, _, name in sorted(found)]


def test_the_check_sees_a_query_in_a_view() -> None:
    """The check itself: the spellings the views used before they were thinned are found."""
    view = (
        "class BotListApi(APIView):\n"
        "    def get(self, request):\n"
        "        bots = Bot.objects.select_related('owner').order_by('name')\n"
        "        match.refresh_from_db(fields=['status'])\n"
        "        entries = tournament.entries.filter(pk=1)\n"
        "        return Response(BotSerializer(bots, many=True).data)\n"
    )
    assert orm_uses(view) == [
        "3: .objects",
        "3: .select_related",
        "3: .order_by",
        "4: .refresh_from_db",
        "5: .filter",
    ]
    assert orm_uses("rows = data.get('x'); rows.update(y); seats = match.seats.all()") == []


MODULES = sorted(API.glob("*.py"))


def test_the_api_has_its_resource_modules() -> None:
    names = {m.stem for m in MODULES}
    resources = {"accounts", "clubs", "competitors", "bots", "tournaments", "ratings"}
    assert resources | {"matches", "tables", "operations", "urls", "views"} <= names


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.name)
def test_no_module_of_the_api_queries_the_database(module: Path) -> None:
    uses = orm_uses(module.read_text(encoding="utf-8"), filename=str(module))
    assert uses == [], (
        f"api/{module.name} queries the database itself ({', '.join(uses)}): "
        "read through league.selectors, write through league.services"
    )
