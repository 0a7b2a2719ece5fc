"""A bot's log, report and faults are its owner's (and staff's), on the pages and in the API.

The end-to-end test plays a real match in the sandbox: an uploaded bot that passes its
validation game at seat 0, then at seat 1 answers with a line that is not JSON (the fault's
message quotes it) and dies with a traceback on stderr (kept with the fault). Everyone but
its owner and staff sees the outcome and the fault kinds only.
"""

from __future__ import annotations

import hashlib

from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

import pytest

from bots.models import BotFault, BotVersion
from bots.services import bot_create, bot_version_validate
from league.models import Match, MatchResult, MatchStatus
from league.services.matches import match_run

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

PASSWORD = "a long pass phrase 42"

LEAKY_BOT = b"""import json
import sys


def reveal_the_plan(seat):
    sys.stdout.write("PLAN-OF-ATTACK-%d is no JSON\\n" % seat)
    sys.stdout.flush()
    return undefined_name_in_the_source  # noqa: F821 - SOURCE-LINE-SECRET


seat = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        seat = message["seat"]
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "request":
        if seat != 0:
            reveal_the_plan(seat)
        print(json.dumps({"id": message["id"], "action": message["legal"][0]}), flush=True)
    elif message["type"] == "end":
        break
"""
SECRETS = ("PLAN-OF-ATTACK", "SOURCE-LINE-SECRET", "undefined_name_in_the_source")


def person(name: str, *, staff: bool = False) -> tuple[User, Client]:
    user = User.objects.create_user(name, password=PASSWORD, is_staff=staff)
    client = Client()
    client.force_login(user)
    return user, client


def api_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


@pytest.mark.sandbox
def test_a_crashing_bots_messages_and_traceback_reach_its_owner_only() -> None:
    owner, owner_page = person("bea")
    staff, staff_page = person("stan", staff=True)
    other, other_page = person("eve")
    api = api_for(owner)
    bot = api.post("/api/bots/", {"name": "Leaky", "families": ["kingen"]}, format="json").json()
    upload = SimpleUploadedFile("main.py", LEAKY_BOT)
    version = api.post(f"/api/bots/{bot['id']}/versions/", {"file": upload}, format="multipart")
    assert version.status_code == 201, version.content
    version_id = version.json()["id"]
    validated = bot_version_validate(version_id=version_id)  # seat 0: it plays well
    assert validated is not None
    assert validated.status == BotVersion.Status.ACTIVE, validated.report
    competitor = api.post("/api/competitors/", {"bot_version": version_id}, format="json").json()
    table = api.post(
        "/api/tables/",
        {
            "game": "kingen",
            "seats": ["builtin:greedy", competitor["id"], "builtin:greedy", "builtin:random"],
        },
        format="json",
    )
    assert table.status_code == 201, table.content
    match_id = table.json()["id"]
    assert match_run(match_id=match_id, worker="test").outcome == "finished"
    result = MatchResult.objects.get(match_id=match_id)
    assert result.outcomes[1] in ("crash", "protocol_error"), result.outcomes
    faults = BotFault.objects.filter(version_id=version_id, match_id=match_id)
    assert {f.cause for f in faults} >= {"protocol_error"}
    assert any("PLAN-OF-ATTACK-1" in f.message for f in faults)
    assert any("SOURCE-LINE-SECRET" in f.log for f in faults)

    paths = [
        f"/api/matches/{match_id}/record/",
        f"/api/matches/{match_id}/",
        f"/api/bot-versions/{version_id}/",
        f"/api/bots/{bot['id']}/",
        f"/api/tournaments/{table.json()['tournament']}/records.ndjson",
    ]
    pages = [f"/bots/{bot['id']}/", f"/bots/{bot['id']}/versions/", f"/matches/{match_id}/"]

    def seen(api_client: APIClient, page_client: Client) -> str:
        texts = []
        for path in paths:
            response = api_client.get(path)
            assert response.status_code == 200, (path, response.content)
            if response.streaming:
                texts.append(b"".join(response.streaming_content).decode())  # type: ignore[attr-defined]
            else:
                texts.append(response.content.decode())
        texts += [page_client.get(page).content.decode() for page in pages]
        return "\n".join(texts)

    for api_client, page_client in ((api_for(None), Client()), (api_for(other), other_page)):
        text = seen(api_client, page_client)
        assert leaks(text) == [], leaks(text)
        record = api_client.get(paths[0]).json()
        causes = {f["cause"] for f in record["meta"]["faults"] if f["seat"] == 1}
        assert "protocol_error" in causes  # the kind of fault is public
        assert all("message" not in f for f in record["meta"]["faults"])
        page = page_client.get(pages[0]).content.decode()
        assert "<strong>protocol_error</strong>" in page
    for api_client, page_client in ((api_for(owner), owner_page), (api_for(staff), staff_page)):
        text = seen(api_client, page_client)
        assert "PLAN-OF-ATTACK-1" in text
        assert "SOURCE-LINE-SECRET" in text  # the stderr kept with the fault, on the bot page


def stored_version(owner: User) -> BotVersion:
    bot = bot_create(owner=owner, name="Crashy", families=["kingen"])
    code = b"raise SystemExit(3)\n"
    version = BotVersion.objects.create(
        bot=bot,
        number=1,
        filename="crashy.py",
        code=code,
        sha256=hashlib.sha256(code).hexdigest(),
        size=len(code),
        status=BotVersion.Status.REJECTED,
        report={
            "structure": "ok",
            "game": "kingen",
            "outcome": "crash",
            "log": "stderr: CONFIDENTIAL-OUTPUT",
            "problem": "the validation game ended with crash: CONFIDENTIAL-PROBLEM",
        },
    )
    BotFault.objects.create(
        version=version,
        seat=0,
        cause="crash",
        message="exited with CONFIDENTIAL-MESSAGE",
        log="Traceback (most recent call last):\n  CONFIDENTIAL-TRACEBACK\n",
    )
    return version


CONFIDENTIAL = (
    "CONFIDENTIAL-OUTPUT",
    "CONFIDENTIAL-PROBLEM",
    "CONFIDENTIAL-MESSAGE",
    "CONFIDENTIAL-TRACEBACK",
)


def test_the_bot_page_shows_the_log_and_fault_messages_to_the_owner_and_staff_only() -> None:
    owner, owner_page = person("bea")
    _, staff_page = person("stan", staff=True)
    _, other_page = person("eve")
    version = stored_version(owner)
    for client in (Client(), other_page):
        for path in (f"/bots/{version.bot_id}/", f"/bots/{version.bot_id}/versions/"):
            text = client.get(path).content.decode()
            assert [c for c in CONFIDENTIAL if c in text] == [], path
            assert "<strong>crash</strong>" in text  # the fault's kind
            assert "rejected" in text
            assert "shown to its owner only" in text
    for client in (owner_page, staff_page):
        text = client.get(f"/bots/{version.bot_id}/").content.decode()
        assert [c for c in CONFIDENTIAL if c in text] == list(CONFIDENTIAL)


def test_a_failed_matchs_page_shows_its_traceback_to_staff_only() -> None:
    from league.services.tables import table_open

    owner, owner_page = person("ann")
    _, staff_page = person("stan", staff=True)
    match = table_open(
        actor=owner,
        game="kingen",
        seats=["me", "builtin:greedy", "builtin:greedy", "builtin:greedy"],
    )
    Match.objects.filter(pk=match.pk).update(
        status=MatchStatus.ERROR,
        error='Traceback (most recent call last):\n  File "x.py", line 1\nKeyError: SERVER-SECRET',
    )
    for client in (Client(), owner_page):
        text = client.get(f"/matches/{match.pk}/").content.decode()
        assert "SERVER-SECRET" not in text
        assert "a server error (its traceback is shown to staff only)" in text
    assert "SERVER-SECRET" in staff_page.get(f"/matches/{match.pk}/").content.decode()
