"""Named tokens through the API (docs/api.md, *Tokens*): list, create (the key once),
revoke (refused at once); a named token never makes or revokes a wider token."""

from __future__ import annotations

from rest_framework.test import APIClient

import pytest

from accounts.api_tokens import api_token_create
from tests.league.builders import user_create

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db]

PASSWORD = "a long password 1"


def token_client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_signed_in_person_lists_creates_and_revokes_tokens_by_the_api() -> None:
    ann = user_create("ann", PASSWORD)
    site = APIClient()
    site.force_authenticate(ann)
    made = site.post(
        "/api/auth/tokens/",
        {"name": "results script", "scopes": ["read", "play"], "expires_in_days": 30},
        format="json",
    )
    assert made.status_code == 201, made.content
    key = made.json()["token"]
    assert key.startswith("kl_")
    assert made.json()["scopes"] == ["play", "read"]
    assert made.json()["expires_at"] is not None

    api = token_client(key)
    listed = api.get("/api/auth/tokens/")
    assert listed.status_code == 200
    [row] = listed.json()
    assert row["name"] == "results script"
    assert row["last_used_at"] is not None  # this very request
    assert key not in listed.content.decode()  # the key is shown once
    assert set(row) == {
        "id", "name", "prefix", "scopes", "created_at", "last_used_at", "expires_at"
    }  # fmt: skip

    assert site.delete(f"/api/auth/tokens/{row['id']}/").status_code == 204
    refused = api.get("/api/auth/tokens/")
    assert refused.status_code == 401
    assert "revoked" in refused.json()["detail"]
    assert site.get("/api/auth/tokens/").json() == []
    assert site.delete(f"/api/auth/tokens/{row['id'] + 1000}/").status_code == 404


def test_a_token_makes_only_narrower_tokens_and_revokes_only_narrower_ones() -> None:
    ann = user_create("ann", PASSWORD)
    _, reader_key = api_token_create(user=ann, name="reader", scopes=["read"], expires_in_days=10)
    wide, _ = api_token_create(user=ann, name="bots", scopes=["read", "bots"])
    reader = token_client(reader_key)

    wider = reader.post(
        "/api/auth/tokens/", {"name": "x", "scopes": ["read", "bots"]}, format="json"
    )
    assert wider.status_code == 403
    assert "only make tokens with its own scopes (read), not bots" in wider.json()["detail"]
    longer = reader.post("/api/auth/tokens/", {"name": "x", "scopes": ["read"]}, format="json")
    assert longer.status_code == 403
    assert "expire no later than itself" in longer.json()["detail"]
    ok = reader.post(
        "/api/auth/tokens/", {"name": "x", "scopes": ["read"], "expires_in_days": 5}, format="json"
    )
    assert ok.status_code == 201

    cut_off = reader.delete(f"/api/auth/tokens/{wide.pk}/")
    assert cut_off.status_code == 403
    assert "only revoke itself" in cut_off.json()["detail"]
    assert reader.delete(f"/api/auth/tokens/{ok.json()['id']}/").status_code == 204

    # A token without the read scope manages no tokens.
    _, player_key = api_token_create(user=ann, name="player", scopes=["play"])
    assert token_client(player_key).get("/api/auth/tokens/").status_code == 403


def test_bad_token_requests_are_clear_400s_and_strangers_are_refused() -> None:
    ann = user_create("ann", PASSWORD)
    bob = user_create("bob", PASSWORD)
    theirs, _ = api_token_create(user=bob, name="bob's", scopes=["read"])
    site = APIClient()
    site.force_authenticate(ann)
    unknown = site.post("/api/auth/tokens/", {"name": "x", "scopes": ["admin"]}, format="json")
    assert unknown.status_code == 400
    assert "scopes" in unknown.json()["detail"]
    blank = site.post("/api/auth/tokens/", {"name": " ", "scopes": ["read"]}, format="json")
    assert blank.status_code == 400
    assert site.delete(f"/api/auth/tokens/{theirs.pk}/").status_code == 404
    assert APIClient().get("/api/auth/tokens/").status_code == 401


def test_the_old_token_manages_named_tokens_with_every_scope() -> None:
    user_create("ann", PASSWORD)
    key = (
        APIClient()
        .post("/api/auth/token/", {"username": "ann", "password": PASSWORD}, format="json")
        .json()["token"]
    )
    made = token_client(key).post(
        "/api/auth/tokens/", {"name": "bots", "scopes": ["bots", "clubs"]}, format="json"
    )
    assert made.status_code == 201
    assert made.json()["expires_at"] is None
