"""Private replays: a local match's record (``python -m bots match ... --record FILE``)
uploaded to one's own account, by the API and by the page's form, readable by its owner
alone; records that are not records, or break the rules, refused with a 400 naming it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

import pytest

from bots.__main__ import main as bots_main
from league.models import PrivateReplay
from tests.api_answers import ok, refused
from tests.league.builders import user_create

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def local_record(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A record as the bots' command line writes it."""
    path = tmp_path_factory.mktemp("match") / "game.json"
    bots = ["builtin:greedy", "builtin:random", "builtin:greedy", "builtin:random"]
    assert bots_main(["match", "kingen", *bots, "--seed", "4", "--record", str(path)]) == 0
    return path.read_bytes()


def _api(username: str) -> APIClient:
    api = APIClient()
    api.force_authenticate(user_create(username))
    return api


def _broken(record: bytes) -> bytes:
    data: dict[str, Any] = json.loads(record)
    plays = [e for e in data["deals"][0]["actions"] if str(e.get("action", "")).startswith("play")]
    plays[0]["seat"] = (plays[0]["seat"] + 1) % 4  # a card played out of turn
    return json.dumps(data).encode()


def test_an_uploaded_record_is_a_replay_its_owner_alone_reads(
    local_record: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    ann, eve = _api("ann"), _api("eve")
    upload = SimpleUploadedFile("game.json", local_record)
    replay = ok(ann.post("/api/replays/", {"file": upload}, format="multipart"), 201)
    assert replay["game"] == "kingen"
    assert replay["title"].startswith("kingen: ")
    record = ok(ann.get(replay["record_url"]))
    assert record == json.loads(local_record)
    assert [r["id"] for r in ok(ann.get("/api/replays/"))] == [replay["id"]]

    # Nobody else reads it, lists it, or deletes it: to them it does not exist.
    assert ok(eve.get("/api/replays/")) == []
    refused(eve.get(f"/api/replays/{replay['id']}/"), 404)
    refused(eve.get(replay["record_url"]), 404)
    refused(eve.delete(f"/api/replays/{replay['id']}/"), 404)
    anonymous = APIClient()
    assert anonymous.get(replay["record_url"]).status_code in (401, 403)
    assert anonymous.post("/api/replays/", {"record": {}}, format="json").status_code in (401, 403)

    # As JSON, with a title; then deleted by its owner.
    titled = ok(
        ann.post(
            "/api/replays/",
            {"record": json.loads(local_record), "title": "My loss"},
            format="json",
        ),
        201,
    )
    assert titled["title"] == "My loss"
    assert ann.delete(f"/api/replays/{titled['id']}/").status_code == 204
    assert PrivateReplay.objects.count() == 1


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"not json at all", "This is not a game record"),
        (b'{"game": "kingen"}', "This is not a game record"),
        (b'{"game": "no_such_game", "seats": [], "deals": []}', "This is not a game record"),
        (None, "The record breaks the game's rules"),
    ],
)
def test_an_invalid_record_is_refused_naming_the_problem(
    local_record: bytes, content: bytes | None, problem: str
) -> None:
    ann = _api("ann")
    upload = SimpleUploadedFile("game.json", content or _broken(local_record))
    message = refused(ann.post("/api/replays/", {"file": upload}, format="multipart"), 400)
    assert message.startswith(problem)
    assert PrivateReplay.objects.count() == 0


def test_a_json_body_that_is_not_a_record_object_is_refused() -> None:
    ann = _api("ann")
    for body in ({"record": [1, 2]}, {"title": "x"}, [1]):
        refused(ann.post("/api/replays/", body, format="json"), 400)
    refused(ann.post("/api/replays/", {}, format="multipart"), 400)
    assert PrivateReplay.objects.count() == 0


def test_the_pages_form_keeps_a_replay_shown_to_its_owner_alone(
    local_record: bytes, tmp_path: Path
) -> None:
    ann = Client()
    ann.force_login(user_create("ann"))
    eve = Client()
    eve.force_login(user_create("eve"))

    page = ann.get("/replays/")
    assert page.status_code == 200
    assert b'enctype="multipart/form-data"' in page.content

    bad = ann.post("/replays/", {"file": SimpleUploadedFile("g.json", b"[]")})
    assert bad.status_code == 400
    assert "This is not a game record" in bad.content.decode()

    answer = ann.post(
        "/replays/", {"file": SimpleUploadedFile("g.json", local_record), "title": "Loss"}
    )
    assert answer.status_code == 302
    replay = PrivateReplay.objects.get()
    assert answer["Location"] == f"/replays/{replay.pk}/"
    shown = ann.get(answer["Location"])
    assert shown.status_code == 200
    assert f'data-record-url="/replays/{replay.pk}/record.json"' in shown.content.decode()
    assert ann.get(f"/replays/{replay.pk}/record.json").json() == json.loads(local_record)
    timeline = ann.get(f"/replays/{replay.pk}/timeline.json").json()
    assert len(timeline["deals"]) == len(json.loads(local_record)["deals"])
    assert b"Loss" in ann.get("/replays/").content

    for path in ("/", "record.json", "timeline.json"):
        url = f"/replays/{replay.pk}/{path.lstrip('/')}"
        assert eve.get(url).status_code == 404, url
    assert b"Loss" not in eve.get("/replays/").content
    assert Client().get(f"/replays/{replay.pk}/").status_code == 302  # to sign in
