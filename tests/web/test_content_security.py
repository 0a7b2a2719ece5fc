"""The Content-Security-Policy (config/content_security.py) is on every answer, pages, API
and read-cache hits alike; the API docs keep their own; and no template has what the policy
refuses: an inline script, an ``on...=`` handler, a ``style`` attribute or element. The
browser tests show the pages work under it (tests/web/browser.py fails a test on any
violation Chromium reports)."""

from __future__ import annotations

import re
from pathlib import Path

from django.test import Client

import pytest
from pytest_django.fixtures import Settings

from api.docs import API_DOCS_CONTENT_SECURITY_POLICY
from api.read_cache import HIT_HEADER
from config.content_security import CONTENT_SECURITY_POLICY
from tests.league.builders import bot_tournament, user_create

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_FOLDERS = (ROOT / "templates", ROOT / "web" / "templates")
API_DOCS_TEMPLATES = {ROOT / "templates" / "api" / "redoc.html"}  # their own policy
INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I)
HANDLER = re.compile(r"""\son[a-z]+\s*=\s*["']""", re.I)
STYLE = re.compile(r"""\sstyle\s*=\s*["']|<style\b""", re.I)
PAGES = (
    "/",
    "/accounts/signup/",
    "/accounts/login/",
    "/leagues/",
    "/clubs/",
    "/bots/",
    "/ratings/",
    "/ladders/",
    "/rules/",
    "/samples/replay/?game=kingen&seed=3",
    "/samples/table/?game=kingen&seed=3&new=1",
    "/no/such/page/",
    "/admin/login/",
)


def refused_by_the_policy(html: str) -> list[str]:
    return [
        found.group(0)
        for pattern in (INLINE_SCRIPT, HANDLER, STYLE)
        for found in pattern.finditer(html)
    ]


def test_no_template_has_an_inline_script_handler_or_style() -> None:
    found = {
        str(path.relative_to(ROOT)): refused_by_the_policy(path.read_text(encoding="utf-8"))
        for folder in TEMPLATE_FOLDERS
        for path in folder.rglob("*.html")
        if path not in API_DOCS_TEMPLATES
    }
    assert {path: what for path, what in found.items() if what} == {}


def test_the_check_finds_what_the_policy_refuses() -> None:
    assert refused_by_the_policy('<button onclick="go()">') == [' onclick="']
    assert refused_by_the_policy('<p style="color: red">') == [' style="']
    assert refused_by_the_policy("<script>go()</script>") == ["<script>"]
    assert refused_by_the_policy('<script src="/static/a.js"></script>') == []
    assert refused_by_the_policy('<script type="application/json" id="d">{}</script>') == []


@pytest.mark.django_db
@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_the_policy(settings: Settings, path: str) -> None:
    settings.WEB_SAMPLES = True
    user_create("ann")
    response = Client().get(path)
    assert response.status_code in (200, 404)
    assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert refused_by_the_policy(response.content.decode()) == []


@pytest.mark.django_db
def test_a_signed_in_persons_pages_and_the_api_have_it() -> None:
    client = Client()
    client.force_login(user_create("ann"))
    for path in ("/", "/games/", "/settings/display/", "/api/tournaments/", "/api/no-such/"):
        response = client.get(path)
        assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY, path


@pytest.mark.django_db
def test_the_policy_is_strict() -> None:
    directives = dict(part.split(" ", 1) for part in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"
    assert directives["base-uri"] == "'self'"
    assert "unsafe" not in CONTENT_SECURITY_POLICY


@pytest.mark.django_db
def test_the_api_docs_keep_their_own_policy() -> None:
    for path in ("/api/docs/", "/api/redoc/"):
        response = Client().get(path)
        assert response["Content-Security-Policy"] == API_DOCS_CONTENT_SECURITY_POLICY


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_read_cache_hit_has_the_policy() -> None:
    tournament, _ = bot_tournament(game="kingen", bot="greedy", entrants=4)
    url = f"/leagues/{tournament.pk}/"
    miss, hit = Client().get(url), Client().get(url)
    assert (miss[HIT_HEADER], hit[HIT_HEADER]) == ("miss", "hit")
    assert hit["Content-Security-Policy"] == miss["Content-Security-Policy"]
    assert hit["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
