"""A bot's game families through the API (issue 35): a bot of no family is refused with a
message naming what to add, a PATCH changes the families it sends and refuses, naming
them, the fields it does not take (never a 200 that ignored one)."""

from __future__ import annotations

import pytest

from bots.models import Bot
from tests.api_answers import client_for, ok, refused
from tests.league.builders import user_create

pytestmark = pytest.mark.django_db


def test_a_bot_of_no_family_is_refused_naming_what_to_add() -> None:
    api = client_for(user_create("ann"))
    for body in ({"name": "Rando"}, {"name": "Rando", "families": []}):
        answer = api.post("/api/bots/", body, format="json")
        assert answer.status_code == 400, answer.content
        message = answer.json()["errors"]["families"][0]
        assert "add the game families the bot plays" in message
        assert "kingen" in message  # what may be added, from the engine's registry
    # the old single field is not silently ignored either: it is named
    answer = api.post("/api/bots/", {"name": "Rando", "family": "kingen"}, format="json")
    assert answer.status_code == 400
    assert "family" in answer.json()["errors"]
    assert not Bot.objects.exists()


def test_a_bot_plays_the_families_it_names_each_once() -> None:
    api = client_for(user_create("ann"))
    bot = ok(
        api.post(
            "/api/bots/",
            {"name": "Rando", "families": ["priffe", "kingen", "priffe"]},
            format="json",
        ),
        201,
    )
    assert bot["families"] == ["kingen", "priffe"]  # the registry's order
    refused(api.post("/api/bots/", {"name": "Other", "families": ["whist"]}, format="json"), 400)
    # More names than the schema's maxItems, repeats or not, is a 400 as the schema says
    # (schemathesis found six "king" accepted: the length was checked of the list kept).
    many = api.post("/api/bots/", {"name": "Many", "families": ["king"] * 6}, format="json")
    assert many.status_code == 400, many.content
    assert "families" in many.json()["errors"]
    assert not Bot.objects.filter(name="Many").exists()


def test_a_patch_of_families_changes_them_and_leaves_the_rest() -> None:
    ann = user_create("ann")
    api = client_for(ann)
    bot = ok(api.post("/api/bots/", {"name": "Rando", "families": ["kingen"]}, format="json"), 201)
    url = f"/api/bots/{bot['id']}/"
    changed = ok(api.patch(url, {"families": ["king", "priffe"]}, format="json"))
    assert changed["families"] == ["king", "priffe"]
    assert changed["club_organisers_may_enter"] is False
    assert ok(api.get(url))["families"] == ["king", "priffe"]
    consent = ok(api.patch(url, {"club_organisers_may_enter": True}, format="json"))
    assert (consent["families"], consent["club_organisers_may_enter"]) == (["king", "priffe"], True)
    refused(api.patch(url, {"families": []}, format="json"), 400)
    refused(client_for(user_create("eve")).patch(url, {"families": ["kingen"]}, format="json"), 403)
    assert ok(api.get(url))["families"] == ["king", "priffe"]


def test_a_patch_with_an_unknown_or_read_only_field_is_a_400_naming_it() -> None:
    api = client_for(user_create("ann"))
    bot = ok(api.post("/api/bots/", {"name": "Rando", "families": ["kingen"]}, format="json"), 201)
    url = f"/api/bots/{bot['id']}/"
    answer = api.patch(url, {"family": "king"}, format="json")
    assert answer.status_code == 400
    errors = answer.json()["errors"]
    assert list(errors) == ["family"]
    assert "unknown field" in errors["family"][0]
    assert "families" in errors["family"][0]
    answer = api.patch(
        url, {"families": ["king"], "name": "Renamed", "kind": "builtin"}, format="json"
    )
    assert answer.status_code == 400
    errors = answer.json()["errors"]
    assert set(errors) == {"name", "kind"}
    assert all("read-only" in errors[name][0] for name in ("name", "kind"))
    assert "name" in answer.json()["detail"]
    assert "kind" in answer.json()["detail"]
    after = ok(api.get(url))
    assert (after["name"], after["families"]) == ("Rando", ["kingen"])  # nothing half-done
