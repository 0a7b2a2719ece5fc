"""What the API tests share: a client signed in as a person, and the two readings of an
answer (the JSON of a success, the message of a refusal)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework.test import APIClient


def client_for(user: User | None = None) -> APIClient:
    """An API client signed in as ``user`` (anonymous for None)."""
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def ok(response: Any, status: int = 200) -> Any:
    """The JSON of an answer that must have ``status``."""
    assert response.status_code == status, response.content
    return response.json()


def refused(response: Any, status: int) -> str:
    """The message of a refusal: ``status`` with a JSON body whose detail says why."""
    assert response.status_code == status, response.content
    body = response.json()
    assert isinstance(body["detail"], str), body
    assert body["detail"], body
    return str(body["detail"])
