"""league/ apart from its pure domain stays under a quarter of the code (issue 15).

The code is the Python of the packages config, api, web, league, bots and engine, without
migrations and tests; a line is a line of the file. The league's Django app (models,
services, selectors, tasks, commands) is what is left of league/ once league/domain/ (the
pure scheduling, standings and ratings mathematics) is set apart: the project, the API
and the pages live outside it, so features land in the layer they belong to.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "api", "web", "league", "bots", "engine")
LEAGUE_APP_SHARE_LIMIT = 0.25


def python_lines(package: str) -> dict[Path, int]:
    """Lines per Python file of ``package``, migrations and caches left out."""
    counted: dict[Path, int] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        relative = path.relative_to(ROOT)
        if {"migrations", "tests", "__pycache__"} & set(relative.parts):
            continue
        counted[relative] = len(path.read_text(encoding="utf-8").splitlines())
    return counted


def league_app_share() -> tuple[int, int]:
    """Lines of league/ outside league/domain/, and lines of the whole code."""
    lines = {path: count for package in PACKAGES for path, count in python_lines(package).items()}
    league_app = sum(
        count
        for path, count in lines.items()
        if path.parts[0] == "league" and path.parts[1:2] != ("domain",)
    )
    return league_app, sum(lines.values())


def test_the_count_sees_every_package_and_the_domain_apart() -> None:
    for package in PACKAGES:
        assert python_lines(package), f"{package}/ has no Python file: is the layout moved?"
    domain = sum(python_lines("league/domain").values())
    league = sum(python_lines("league").values())
    app, _ = league_app_share()
    assert domain > 0
    assert app == league - domain


def test_league_apart_from_its_pure_domain_is_under_a_quarter_of_the_code() -> None:
    app, total = league_app_share()
    share = app / total
    assert share < LEAGUE_APP_SHARE_LIMIT, (
        f"league/ outside league/domain/ is {app} of {total} lines ({share:.1%}), over "
        f"{LEAGUE_APP_SHARE_LIMIT:.0%}: move the project, the API or the pages out of it, "
        "or the pure mathematics into league/domain/"
    )
