"""Every API error is JSON with a message, through the real API on PostgreSQL: a write
without credentials (401, naming the scheme), the session's CSRF check, bodies that cannot
be read (malformed JSON or multipart, nesting too deep, a lone surrogate, too large, too
many files), a media type the view does not take, a wrong method, an unknown path; and a
malformed multipart body through the site's own web server (uvicorn), as it is served."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from django.conf import settings
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

import pytest

from bots.bundle import MIB
from bots.models import Bot, BotVersion
from league.models import Club
from tests.league.builders import user_create

PASSWORD = "a long password 1"
BOUNDARY = "b0undary"


def refused(response: Any, status: int) -> str:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    detail = response.json()["detail"]
    assert isinstance(detail, str)
    assert detail
    return detail


def signed_in() -> APIClient:
    client = APIClient()
    client.force_authenticate(user_create("ann"))
    return client


def post_raw(client: APIClient, path: str, body: bytes, content_type: str) -> Any:
    """POST these bytes as they are (ASCII: the client sends a str as its UTF-8)."""
    return client.generic("POST", path, body.decode("ascii"), content_type=content_type)


def multipart(*parts: tuple[str, str | None, bytes]) -> bytes:
    """A multipart/form-data body of (field, file name or None, content) parts."""
    body = b""
    for name, filename, content in parts:
        disposition = f'form-data; name="{name}"' + (
            f'; filename="{filename}"' if filename is not None else ""
        )
        body += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n\r\n".encode()
        body += content + b"\r\n"
    return body + f"--{BOUNDARY}--\r\n".encode()


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_write_without_credentials_is_401_naming_the_scheme() -> None:
    response = APIClient().post("/api/clubs/", {"name": "Tuesday"}, format="json")
    assert "credentials" in refused(response, 401)
    assert response["WWW-Authenticate"] == "Token"
    assert not Club.objects.exists()
    assert APIClient().get("/api/clubs/").status_code == 200  # reading is open


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_session_still_signs_in_with_its_csrf_check() -> None:
    user_create("ann")
    browser = Client(enforce_csrf_checks=True)
    assert browser.login(username="ann", password=PASSWORD)
    body = json.dumps({"name": "Tuesday"})
    forged = browser.post("/api/clubs/", body, content_type="application/json")
    assert "CSRF" in refused(forged, 403)
    browser.get("/")  # a page with a form: the CSRF cookie
    token = browser.cookies["csrftoken"].value
    created = browser.post(
        "/api/clubs/", body, content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert created.status_code == 201, created.content
    assert Club.objects.get().name == "Tuesday"


TOO_LARGE = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content_type", "body", "status", "words"),
    [
        ("application/json", b'{"name":', 400, "malformed request: JSON parse error"),
        ("application/json", b"[" * 100_000 + b"]" * 100_000, 400, "nested too deeply"),
        ("application/json", b'{"name": "a\\ud800"}', 400, "lone surrogate (\\ud800)"),
        ("application/json", b'{"\\udfff": 1}', 400, "lone surrogate (\\udfff)"),
        ("application/json", b'"' + b"x" * TOO_LARGE + b'"', 413, "MiB besides files"),
        ("text/plain", b"Tuesday", 415, "Send application/json."),
        ("application/x-www-form-urlencoded", b"name=Tuesday", 415, "application/json"),
    ],
)
def test_a_body_that_cannot_be_read_is_a_json_4xx(
    content_type: str, body: bytes, status: int, words: str
) -> None:
    response = post_raw(signed_in(), "/api/clubs/", body, content_type)
    assert words in refused(response, status)
    assert not Club.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_multipart_upload_that_cannot_be_read_is_a_json_4xx() -> None:
    ann = user_create("ann")
    bot = Bot.objects.create(owner=ann, name="Rando")
    api = APIClient()
    api.force_authenticate(ann)
    path = f"/api/bots/{bot.pk}/versions/"
    content_type = f"multipart/form-data; boundary={BOUNDARY}"
    files = settings.DATA_UPLOAD_MAX_NUMBER_FILES
    cases = [
        (multipart(), 400, "file: No file was submitted."),
        (
            multipart(*[(f"f{i}", f"{i}.py", b"pass") for i in range(files + 1)]),
            400,
            f"too many files in the request: at most {files}",
        ),
        (
            multipart(("note", None, b"x" * TOO_LARGE), ("file", "bot.py", b"pass\n")),
            413,
            f"at most {settings.DATA_UPLOAD_MAX_MEMORY_SIZE / MIB:g} MiB besides files",
        ),
    ]
    for body, status, words in cases:
        response = post_raw(api, path, body, content_type)
        assert words in refused(response, status)
    no_boundary = post_raw(api, path, b"garbage", "multipart/form-data")
    assert "malformed request: Multipart form parse error - Invalid boundary" in refused(
        no_boundary, 400
    )
    multipart_json = api.post(path, {"file": "bot.py"}, format="json")
    assert "Send multipart/form-data." in refused(multipart_json, 415)
    assert not BotVersion.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_wrong_method_and_an_unknown_path_are_json() -> None:
    api = signed_in()
    assert "DELETE" in refused(api.delete("/api/clubs/"), 405)
    assert "/api/nothing/" in refused(api.get("/api/nothing/"), 404)
    assert "no club 999999" in refused(api.get("/api/clubs/999999/"), 404)
    assert refused(APIClient().get("/api/clubs/1/", HTTP_ACCEPT="application/xml"), 406)
    # A browser asks for HTML first: the API still answers JSON (its pages are /api/docs/).
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    assert "no club 999999" in refused(api.get("/api/clubs/999999/", HTTP_ACCEPT=browser), 404)
    assert "DELETE" in refused(api.delete("/api/clubs/", HTTP_ACCEPT=browser), 405)


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/api/clubs/", {"name": 0}, "name: Expected a string, got a number."),
        ("/api/clubs/", {"name": ["Tuesday"]}, "name: Expected a string, got an array."),
        ("/api/clubs/", {"name": ""}, "name: This field may not be blank."),
        ("/api/clubs/", {"name": " \u3000\x1c"}, "name: This field may not be blank."),
        ("/api/clubs/", {"name": "Tues\x00day"}, "name: May not contain NUL characters."),
        ("/api/clubs/", {"name": "x" * 101}, "name: Ensure this field has no more than 100"),
        ("/api/tournaments/", {"club": "1"}, "club: Expected an integer, got a string."),
        ("/api/tournaments/", {"club": 0}, "club: Ensure this value is greater than or"),
        ("/api/tournaments/", {"rounds": 2.0}, "rounds: Expected an integer, got a number."),
        ("/api/tournaments/", {"rounds": True}, "rounds: Expected an integer, got a boolean."),
        ("/api/tournaments/", {"move_seconds": "30"}, "move_seconds: Expected a number"),
        ("/api/tournaments/", {"move_seconds": 10**400}, "move_seconds: A valid number"),
        ("/api/tables/", {"seats": [None]}, "seats.0: This field may not be null."),
        ("/api/tables/", {"seats": [True]}, "seats.0: A seat is 'me', 'open', 'invite:USERN"),
        ("/api/tables/", {"seats": ["me\n"]}, "seats.0: Not 'me', 'open', 'invite:USERNAME'"),
    ],
)
def test_values_the_schema_forbids_are_refused(path: str, body: dict[str, Any], words: str) -> None:
    assert words in refused(signed_in().post(path, body, format="json"), 400)
    assert not Club.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("/api/rounds/?tournament=", 400, "tournament: A valid integer is required."),
        ("/api/rounds/?tournament=0", 400, "tournament: Ensure this value is greater"),
        ("/api/rounds/?tournament=1.0", 400, "tournament: A valid integer is required."),
        ("/api/rounds/?tournament=9223372036854775808", 400, "tournament: Ensure this value"),
        ("/api/matches/?status=", 400, 'status: "" is not a valid choice.'),
        ("/api/competitors/?kind=", 400, 'kind: "" is not a valid choice.'),
        ("/api/ratings/", 400, "game: give a game family (dubbelkingen, king, kingen"),
        ("/api/ratings/?game=bridge", 400, "game: unknown game 'bridge' (known games:"),
        ("/api/ratings/?game=kingen(rules=iwwa)&min_games=0", 200, ""),
        ("/api/rounds/?tournament=9223372036854775807", 200, ""),
    ],
)
def test_query_parameters_are_refused_as_the_schema_says(
    query: str, status: int, words: str
) -> None:
    response = APIClient().get(query)
    if status == 200:
        assert response.status_code == 200, response.content
    else:
        assert words in refused(response, status)


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_the_web_server_hands_a_malformed_multipart_body_to_the_api(live_server_url: str) -> None:
    """An empty multipart body (only the closing boundary, as schemathesis sends) gets the
    API's JSON 400; under daphne, Twisted answered it with an empty 400 of its own."""
    ann = user_create("ann")
    bot = Bot.objects.create(owner=ann, name="Rando")
    token = Token.objects.create(user=ann)
    request = urllib.request.Request(
        f"{live_server_url}/api/bots/{bot.pk}/versions/",
        data=multipart(),
        method="POST",
        headers={
            "Authorization": f"Token {token.key}",
            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
        },
    )
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(request, timeout=30)
    assert answer.value.code == 400
    assert answer.value.headers["Content-Type"] == "application/json"
    assert json.loads(answer.value.read())["detail"] == "file: No file was submitted."
    assert not BotVersion.objects.exists()
