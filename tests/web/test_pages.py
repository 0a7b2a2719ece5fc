"""The web pages through Django's test client: accounts, error pages, sample pages, and
that no page asks the browser for anything from another site."""

from __future__ import annotations

import json
import re

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

import pytest
from pytest_django.fixtures import Settings

pytestmark = pytest.mark.django_db

URL_ATTRIBUTE = re.compile(r"""\b(?:src|href|action)\s*=\s*["']([^"']*)["']""", re.IGNORECASE)
CSS_URL = re.compile(r"""url\(\s*["']?([^"')]+)""")


@pytest.fixture
def samples(settings: Settings) -> None:
    settings.WEB_SAMPLES = True


def external_urls(html: str) -> list[str]:
    """URLs in a page that leave the site (any scheme or protocol-relative URL)."""
    found = URL_ATTRIBUTE.findall(html) + CSS_URL.findall(html)
    return [url for url in found if re.match(r"^(?:[a-z][a-z0-9+.-]*:|//)", url, re.I)]


PAGES = [
    "/",
    "/accounts/signup/",
    "/accounts/login/",
    "/samples/",
    "/samples/replay/?game=kingen&seed=3",
    "/samples/table/?game=kingen&seed=3&new=1",
    "/leagues/",
    "/clubs/",
    "/bots/",
    "/no/such/page/",
]


@pytest.mark.parametrize("path", PAGES)
def test_pages_reference_only_their_own_site(client: Client, samples: None, path: str) -> None:
    response = client.get(path)
    assert response.status_code in (200, 404)
    html = response.content.decode()
    assert external_urls(html) == []
    assert "<script" not in html or 'src="/static/' in html


def test_the_stylesheet_and_scripts_load_nothing_from_elsewhere() -> None:
    from pathlib import Path

    project = Path(__file__).resolve().parents[2]
    static = project / "web" / "static" / "web"
    viewer = project / "engine" / "viewer" / "static" / "web"
    scripts = [*sorted((static / "js").glob("*.js")), *sorted((viewer / "js").glob("*.js"))]
    for path in [viewer / "site.css", *scripts]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"https?://", text), path
        assert external_urls(text) == [], path


def test_the_not_found_page_is_the_sites_own(client: Client) -> None:
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert b"Not found" in response.content
    assert b"King League" in response.content


def test_the_server_error_page_renders_without_a_request() -> None:
    from django.template.loader import render_to_string

    html = render_to_string("500.html")
    assert "Something went wrong" in html
    assert "Traceback" not in html


def test_sign_up_logs_the_person_in(client: Client) -> None:
    response = client.post(
        "/accounts/signup/",
        {
            "username": "ann",
            "password1": "a long pass phrase 42",
            "password2": "a long pass phrase 42",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    page = client.get("/").content.decode()
    assert '<span class="signed-in-words">Signed in as</span> <strong>ann</strong>' in page
    assert get_user_model().objects.filter(username="ann").exists()


def test_sign_up_refuses_a_weak_password_and_says_why(client: Client) -> None:
    response = client.post(
        "/accounts/signup/", {"username": "bob", "password1": "12345678", "password2": "12345678"}
    )
    assert response.status_code == 200
    assert "too common" in response.content.decode()
    assert not get_user_model().objects.filter(username="bob").exists()


def test_sign_up_follows_only_a_local_next(client: Client) -> None:
    data = {
        "username": "cid",
        "password1": "a long pass phrase 42",
        "password2": "a long pass phrase 42",
    }
    response = client.post("/accounts/signup/?next=https://evil.example/", data)
    assert response["Location"] == "/"


def test_log_out_is_a_post(client: Client) -> None:
    get_user_model().objects.create_user("dan", password="a long pass phrase 42")
    client.login(username="dan", password="a long pass phrase 42")
    assert client.get("/accounts/logout/").status_code == 405
    assert client.post("/accounts/logout/").status_code == 302
    assert "Signed in as" not in client.get("/").content.decode()


def test_joining_a_club_needs_an_account(client: Client) -> None:
    response = client.get("/join/ABC123/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_samples_are_not_served_unless_enabled(client: Client, settings: Settings) -> None:
    settings.WEB_SAMPLES = False
    assert client.get("/samples/").status_code == 404
    assert client.get("/samples/record.json?game=kingen&seed=1").status_code == 404


def test_sample_record_and_timeline(client: Client, samples: None) -> None:
    record = client.get("/samples/record.json?game=kingen&seed=3").json()
    assert record["complete"] is True
    timeline = client.get("/samples/timeline.json?game=kingen&seed=3").json()
    assert len(timeline["deals"]) == len(record["deals"])
    running = client.get("/samples/record.json?game=kingen&seed=3&events=60").json()
    assert running["complete"] is False
    assert running["redacted"] is True
    assert all(cards is None for cards in running["deals"][0]["actions"][0]["cards"])


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("game=whist&seed=1", "unknown game"),
        ("game=kingen&seed=x", "seed must be a whole number"),
        ("game=kingen&seed=99999", "seed must be from 0"),
    ],
)
def test_sample_record_errors_are_json_messages(
    client: Client, samples: None, query: str, message: str
) -> None:
    response = client.get(f"/samples/record.json?{query}")
    assert response.status_code == 400
    assert message in response.json()["detail"]


def test_the_sample_table_answers_like_the_league_api(client: Client, samples: None) -> None:
    assert client.get("/samples/table/view.json").status_code == 404
    client.get("/samples/table/?game=kingen&seed=5&new=1")
    data = client.get("/samples/table/view.json").json()
    assert set(data) >= {"view", "deadline", "your_turn"}
    assert data["your_turn"] is True
    view = data["view"]
    assert len(view["hand"]) == 13
    played = (
        next(card for card in view["hand"] if f"play {card}" not in view["legal"])
        if len(view["legal"]) < 13
        else None
    )
    if played is not None:
        refused = client.post(
            "/samples/table/actions.json",
            json.dumps({"action": f"play {played}"}),
            content_type="application/json",
        )
        assert refused.status_code == 400
        assert refused.json()["detail"]
    legal = view["legal"][0]
    answer = client.post(
        "/samples/table/actions.json",
        json.dumps({"action": legal}),
        content_type="application/json",
    )
    assert answer.status_code == 200
    assert legal.split()[1] not in answer.json()["view"]["hand"]
    bad = client.post("/samples/table/actions.json", "{", content_type="application/json")
    assert bad.status_code == 400
    assert "JSON" in bad.json()["detail"]


def test_the_card_images_are_up_to_date() -> None:
    call_command("card_faces", "--check")
