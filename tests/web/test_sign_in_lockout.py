"""The sign-in page and the lock after too many wrong passwords, through the real page (its
view, form, middleware and templates) on PostgreSQL and the real Redis cache.

The lock is the API's too (tests/api/test_throttling.py): one count per username, kept in
the shared cache, whichever way the passwords came.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.test import Client
from rest_framework.test import APIClient

import pytest

from accounts.sign_in import sign_in_lock_get
from tests.league.builders import user_create
from tests.league.clock import Clock, clock_fixture, sign_in_clock_fixture  # noqa: F401

if TYPE_CHECKING:
    from pytest_django.fixtures import Settings

PASSWORD = "a long password 1"
WRONG = "Please enter a correct username and password"

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db]


def sign_in(client: Client, username: str, password: str) -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password})


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def assert_locked_page(response: Any, *, within: int) -> str:
    assert response.status_code == 429, response.content[:2000]
    assert 1 <= int(response["Retry-After"]) <= within
    page = response.content.decode()
    assert "Too many wrong passwords for &#x27;ann&#x27;" in page, page
    assert "is locked until" in page
    assert "Try again in" in page
    assert 'name="username"' in page  # the form is still there, to try again later
    return page


def test_the_sixth_wrong_password_locks_the_page_until_the_lock_ends_and_it_grows(
    settings: Settings, sign_in_clock: Clock
) -> None:
    settings.SIGN_IN_FAILURES_ALLOWED = 5
    settings.SIGN_IN_LOCKOUT_SECONDS = (1, 60)
    user_create("ann", PASSWORD)
    client = Client()

    for _ in range(5):
        response = sign_in(client, "ann", "wrong")
        assert response.status_code == 200
        assert WRONG in response.content.decode()
    assert_locked_page(sign_in(client, "ann", "wrong"), within=1)
    page = assert_locked_page(sign_in(client, "ann", PASSWORD), within=1)
    assert WRONG not in page  # the lock's message, not "wrong password"
    assert not signed_in(client)

    lock = sign_in_lock_get(username="ann", source="address:127.0.0.1")
    assert lock is not None
    sign_in_clock.advance(seconds=lock.until - sign_in_clock.time() - 0.05)
    assert_locked_page(sign_in(client, "ann", PASSWORD), within=1)  # not quite yet
    sign_in_clock.advance(seconds=0.1)
    response = sign_in(client, "ann", PASSWORD)
    assert response.status_code == 302
    assert signed_in(client)

    other = Client()
    for _ in range(5):
        assert sign_in(other, "ann", "wrong").status_code == 200
    response = sign_in(other, "ann", "wrong")
    assert_locked_page(response, within=60)
    assert int(response["Retry-After"]) > 1  # the second lock is longer than the first


def test_wrong_passwords_through_the_api_lock_the_page_too(settings: Settings) -> None:
    settings.SIGN_IN_FAILURES_ALLOWED = 2
    user_create("ann", PASSWORD)
    api = APIClient()
    for _ in range(3):
        api.post("/api/auth/token/", {"username": "ann", "password": "wrong"}, format="json")
    client = Client()
    assert_locked_page(sign_in(client, "ann", PASSWORD), within=60)
    assert not signed_in(client)


def test_sign_in_attempts_from_one_address_are_limited(settings: Settings) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "sign_in": "2/minute",
        },
    }
    user_create("ann", PASSWORD)
    client = Client()
    assert sign_in(client, "bob", "wrong").status_code == 200
    assert sign_in(client, "cid", "wrong").status_code == 200
    response = sign_in(client, "ann", PASSWORD)
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "Too many sign-in attempts from your address: at most 2 in a minute." in (
        response.content.decode()
    )
    assert not signed_in(client)
    assert client.get("/accounts/login/").status_code == 200  # the page itself is not limited
    assert sign_in(Client(REMOTE_ADDR="127.0.0.2"), "ann", PASSWORD).status_code == 302


def test_signing_up_signs_in_through_the_locking_backend() -> None:
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {
            "username": "newcomer",
            "password1": "a long pass phrase 42",
            "password2": "a long pass phrase 42",
        },
    )
    assert response.status_code == 302
    assert client.session["_auth_user_backend"] == "accounts.sign_in.SignInLockoutBackend"
    assert client.get("/join/").status_code == 200  # still signed in on the next request
