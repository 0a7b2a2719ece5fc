"""The schema and the server agree on whole request bodies, not only field by field
(tests/api/test_schema_agreement.py): for each rule the schema now says (found by
schemathesis with all its checks, tests/api/test_schemathesis.py), a body the schema allows
is accepted through the API, and a body it forbids is a 400 JSON message naming the
problem, with nothing written.

- a closed input (api.input_objects.ClosedInputObject): ``additionalProperties: false``;
- "exactly one" / "at most one of ``user`` or ``username``" (and ``user`` or
  ``bot_version``): ``oneOf`` / ``not`` over their ``required``;
- a private replay's record: a JSON object (was any JSON value, null included);
- notification preferences: objects keyed by the kinds of notice, no other key;
- a game string: one of the engine's families, with options or none;
- a chosen name (a bot's, a club's, a tournament's): no direction control characters;
- a display name: at most 40 characters and no control characters once trimmed.

Bodies are checked against the schema drf-spectacular serves, read as draft 4 by
jsonschema-rs (the validator schemathesis uses).
"""

from __future__ import annotations

import copy
from typing import Any

from rest_framework.test import APIClient

import jsonschema_rs
import pytest
from drf_spectacular.generators import SchemaGenerator

from bots.services import bot_create
from league.models import Club, NotificationPreference, PrivateReplay, Tournament
from league.services.competitors import competitor_for_user
from tests.league.builders import bot_tournament, club_with_organiser, user_create


@pytest.fixture(scope="module")
def components() -> dict[str, Any]:
    generator = SchemaGenerator()  # type: ignore[no-untyped-call]
    document = generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    return dict(document["components"])


def _draft4(schema: Any) -> Any:
    """OpenAPI 3.0's ``nullable`` as draft 4 says it."""
    if isinstance(schema, list):
        return [_draft4(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: _draft4(value) for key, value in schema.items()}
    if converted.pop("nullable", False):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


def schema_allows(components: dict[str, Any], component: str, body: Any) -> bool:
    root = {
        "components": _draft4(copy.deepcopy(components)),
        **_draft4(copy.deepcopy(components["schemas"][component])),
    }
    return bool(jsonschema_rs.Draft4Validator(root).is_valid(body))


def agree(
    components: dict[str, Any], component: str, body: Any, response: Any, *words: str
) -> None:
    """The schema allows ``body`` exactly when the server accepted it; a refusal is a
    400 JSON message holding ``words``."""
    allowed = schema_allows(components, component, body)
    accepted = response.status_code < 300
    assert accepted == allowed, (body, allowed, response.status_code, response.content)
    if not accepted:
        assert response.status_code == 400, response.content
        assert response["Content-Type"] == "application/json"
        detail = response.json()["detail"]
        for word in words:
            assert word in detail, detail


def client_of(username: str) -> tuple[APIClient, Any]:
    user = user_create(username)
    client = APIClient()
    client.force_authenticate(user)
    return client, user


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_closed_input_refuses_a_field_it_does_not_take(components: dict[str, Any]) -> None:
    client, owner = client_of("ann")
    bot = bot_create(owner=owner, name="Rando", families=["kingen"])
    schema = components["schemas"]["BotDetailInput"]
    assert schema["additionalProperties"] is False
    extra = {"families": ["priffe"], "colour": "red"}
    response = client.patch(f"/api/bots/{bot.pk}/", extra, format="json")
    agree(components, "BotDetailInput", extra, response, "colour")
    assert client.get(f"/api/bots/{bot.pk}/").json()["families"] == ["kingen"]  # unchanged
    known = {"families": ["priffe"], "club_organisers_may_enter": True}
    response = client.patch(f"/api/bots/{bot.pk}/", known, format="json")
    agree(components, "BotDetailInput", known, response)
    assert client.get(f"/api/bots/{bot.pk}/").json()["families"] == ["priffe"]
    for component in ("AccountInput", "BotListInput", "LadderEntrantInput", "RoundDetailInput"):
        assert components["schemas"][component]["additionalProperties"] is False


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_member_is_named_by_exactly_one_of_user_or_username(
    components: dict[str, Any],
) -> None:
    club, organiser = club_with_organiser()
    client = APIClient()
    client.force_authenticate(organiser)
    bea = user_create("bea")
    user_create("cai")
    path = f"/api/clubs/{club.pk}/members/"
    refused: list[dict[str, Any]] = [{"user": bea.pk, "username": "bea"}, {"role": "player"}]
    for body in refused:
        response = client.post(path, body, format="json")
        agree(components, "ClubMemberListInput", body, response, "exactly one of 'user'")
    accepted: list[dict[str, Any]] = [{"user": bea.pk}, {"username": "cai", "role": "player"}]
    for body in accepted:
        response = client.post(path, body, format="json")
        agree(components, "ClubMemberListInput", body, response)


@pytest.mark.postgres
@pytest.mark.django_db
def test_an_invitation_names_at_most_one_of_user_or_username(
    components: dict[str, Any],
) -> None:
    club, organiser = club_with_organiser()
    client = APIClient()
    client.force_authenticate(organiser)
    bea = user_create("bea")
    user_create("cai")
    path = f"/api/clubs/{club.pk}/invitations/"
    both = {"user": bea.pk, "username": "bea"}
    response = client.post(path, both, format="json")
    agree(components, "ClubInvitationCreateInput", both, response, "at most one of 'user'")
    assert not club.invitations.exists()
    for body in ({}, {"user": bea.pk}, {"username": "cai"}):
        response = client.post(path, body, format="json")
        agree(components, "ClubInvitationCreateInput", body, response)


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_competitor_is_one_of_user_or_bot_version(components: dict[str, Any]) -> None:
    client, ann = client_of("ann")
    for body in ({}, {"user": ann.pk, "bot_version": 1}):
        response = client.post("/api/competitors/", body, format="json")
        agree(components, "CompetitorListInput", body, response, "exactly one of 'user'")
    body = {"user": ann.pk}
    response = client.post("/api/competitors/", body, format="json")
    agree(components, "CompetitorListInput", body, response)
    assert response.json()["id"] == competitor_for_user(user=ann).pk


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_replay_record_is_a_json_object(components: dict[str, Any]) -> None:
    client, _ann = client_of("ann")
    schema = components["schemas"]["JsonInput"]["properties"]["record"]
    assert schema["type"] == "object"
    records: list[tuple[Any, str]] = [(None, "null"), ([], "JSON"), ("a", "JSON"), (5, "JSON")]
    for record, words in records:
        body = {"record": record}
        response = client.post("/api/replays/", body, format="json")
        agree(components, "JsonInput", body, response, "record", words)
    assert not PrivateReplay.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db
def test_notification_preferences_name_kinds_of_notice(components: dict[str, Any]) -> None:
    client, ann = client_of("ann")
    path = "/api/notifications/preferences/"
    unknown: list[dict[str, Any]] = [{"email": {"colour": True}}, {"mode": {"x-other": "off"}}]
    for body in unknown:
        response = client.put(path, body, format="json")
        agree(components, "NotificationPreferencesInput", body, response, "unknown kind")
    assert not NotificationPreference.objects.filter(user=ann).exists()
    known: dict[str, Any] = {"email": {"your_move": False}, "mode": {"invited": "digest"}}
    response = client.put(path, known, format="json")
    agree(components, "NotificationPreferencesInput", known, response)
    assert NotificationPreference.objects.filter(user=ann).count() == 2


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_game_string_starts_with_a_family_and_a_name_has_no_direction_control(
    components: dict[str, Any],
) -> None:
    club, organiser = club_with_organiser()
    client = APIClient()
    client.force_authenticate(organiser)
    base: dict[str, Any] = {"name": "Tuesdays", "club": club.pk, "game": "kingen", "entrants": []}
    refused: list[tuple[dict[str, Any], str | None]] = [
        ({**base, "game": "0"}, "unknown game '0'"),
        ({**base, "game": "kingen(players=3"}, None),  # the engine's: not the pattern's
        ({**base, "name": "\u202egnp.exe"}, "U+202E"),
    ]
    for body, words in refused:
        response = client.post("/api/tournaments/", body, format="json")
        if words is None:
            assert schema_allows(components, "TournamentListInput", body)
            assert response.status_code == 400  # a business rule: tests/api/test_schemathesis
        else:
            agree(components, "TournamentListInput", body, response, words)
    assert not Tournament.objects.exists()
    bot: dict[str, Any] = {"name": "\u202egnp.exe", "families": ["kingen"]}
    response = client.post("/api/bots/", bot, format="json")
    agree(components, "BotListInput", bot, response, "U+202E")
    response = client.post("/api/clubs/", {"name": "A\u2066club"}, format="json")
    agree(components, "ClubListInput", {"name": "A\u2066club"}, response, "U+2066")
    assert Club.objects.count() == 1
    response = client.post("/api/tournaments/", base, format="json")
    agree(components, "TournamentListInput", base, response)


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_display_name_is_40_characters_without_control_characters_once_trimmed(
    components: dict[str, Any],
) -> None:
    client, _ann = client_of("ann")
    cases = [
        (" \t" + "x" * 40 + "\n ", "x" * 40),
        ("\u2028Ann Smith\u00a0", "Ann Smith"),
        ("", ""),
        ("x" * 41, None),
        ("Ann\tSmith", None),
        ("Ann\u200bSmith", None),  # a zero-width space: a format character
        ("\u202eAnn", None),
    ]
    for name, shown in cases:
        body = {"display_name": name}
        response = client.patch("/api/account/", body, format="json")
        agree(components, "AccountInput", body, response, "display_name")
        if shown is not None:
            assert response.json()["display_name"] == shown
    assert client.get("/api/account/").json()["display_name"] == ""


@pytest.mark.postgres
@pytest.mark.django_db
def test_an_empty_format_is_not_one_of_the_schemas_formats() -> None:
    """``?format=`` is an enum of the view's formats in the schema: given empty it is a
    format no renderer has (404, as ``?format=xml``), not taken for absent."""
    tournament, _organiser = bot_tournament()
    path = f"/api/tournaments/{tournament.pk}/records.ndjson"
    client = APIClient()
    assert client.get(path, {"format": "ndjson"}).status_code == 200
    assert client.get(path).status_code == 200
    for given in ("", "xml"):
        response = client.get(path, {"format": given})
        assert response.status_code == 404, response.content
