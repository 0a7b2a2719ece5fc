"""Bots through the API: an upload is checked, validated in the sandbox, entered as a
competitor, and plays a league match in its sandbox; a bad upload is a 400."""

from __future__ import annotations

from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

import pytest

from bots.models import BotVersion
from bots.services import bot_version_validate
from engine.record import verify_record
from league.models import MatchResult
from league.services.competitors import competitor_builtin
from league.services.matches import match_run
from league.services.tables import table_open
from tests.api_answers import ok
from tests.league.builders import user_create

EXAMPLE_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "random_bot.py"


@pytest.mark.django_db
def test_a_bad_upload_is_refused_with_a_message_and_stores_nothing() -> None:
    ann = user_create("ann")
    api = APIClient()
    api.force_authenticate(ann)
    bot = ok(api.post("/api/bots/", {"name": "Rando", "families": ["kingen"]}, format="json"), 201)
    for name, content in (("notes.txt", b"hello"), ("empty.py", b"")):
        upload = SimpleUploadedFile(name, content)
        response = api.post(
            f"/api/bots/{bot['id']}/versions/", {"file": upload}, format="multipart"
        )
        assert response.status_code == 400, response.content
        assert response.json()["detail"]
    assert api.post(f"/api/bots/{bot['id']}/versions/", {}, format="multipart").status_code == 400
    other = APIClient()
    other.force_authenticate(user_create("eve"))
    upload = SimpleUploadedFile("bot.py", EXAMPLE_BOT.read_bytes())
    refused = other.post(f"/api/bots/{bot['id']}/versions/", {"file": upload}, format="multipart")
    assert refused.status_code == 403
    assert BotVersion.objects.count() == 0


@pytest.mark.sandbox
@pytest.mark.django_db
def test_an_uploaded_bot_is_validated_in_its_sandbox_and_becomes_a_competitor() -> None:
    ann = user_create("ann")
    api = APIClient()
    api.force_authenticate(ann)
    bot = ok(api.post("/api/bots/", {"name": "Rando", "families": ["kingen"]}, format="json"), 201)
    upload = SimpleUploadedFile("random_bot.py", EXAMPLE_BOT.read_bytes())
    version = ok(
        api.post(f"/api/bots/{bot['id']}/versions/", {"file": upload}, format="multipart"), 201
    )
    assert version["status"] == "pending"
    assert len(version["sha256"]) == 64
    refused = api.post("/api/competitors/", {"bot_version": version["id"]}, format="json")
    assert refused.status_code == 400  # not active yet

    bot_version_validate(version_id=version["id"])  # the bots.tasks task's body
    detail = ok(api.get(f"/api/bot-versions/{version['id']}/"))
    assert detail["status"] == "active", detail["report"]
    assert detail["faults"] == []
    competitor = ok(
        api.post("/api/competitors/", {"bot_version": version["id"]}, format="json"), 201
    )

    assert competitor["kind"] == "bot"


@pytest.mark.sandbox
@pytest.mark.django_db
def test_a_league_match_with_an_uploaded_bot_records_its_outcome() -> None:
    ann = user_create("ann")
    api = APIClient()
    api.force_authenticate(ann)
    bot = ok(api.post("/api/bots/", {"name": "Rando", "families": ["kingen"]}, format="json"), 201)
    upload = SimpleUploadedFile("random_bot.py", EXAMPLE_BOT.read_bytes())
    version = ok(
        api.post(f"/api/bots/{bot['id']}/versions/", {"file": upload}, format="multipart"), 201
    )
    bot_version_validate(version_id=version["id"])
    competitor = ok(
        api.post("/api/competitors/", {"bot_version": version["id"]}, format="json"), 201
    )
    greedy = competitor_builtin(name="greedy")
    match = table_open(
        actor=ann, game="kingen", seats=[competitor["id"], greedy.pk, greedy.pk, greedy.pk]
    )
    assert match_run(match_id=match.pk, worker="test").outcome == "finished"
    result = MatchResult.objects.get(match=match)
    assert result.outcomes[0] == "ok"
    assert verify_record(result.record).ok
    assert result.record["seats"][0]["player"] == "Rando v1"
