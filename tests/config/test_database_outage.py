"""The 503 answers while the database is unreachable (config/database_outage.py), unit-level;
tests/league/test_outages.py cuts a real database under a web process."""

from __future__ import annotations

from typing import Any

from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

import pytest

from config.database_outage import DatabaseUnavailableMiddleware


@pytest.fixture(autouse=True)
def no_connection_open(django_db_blocker: Any) -> None:
    """The middleware drops broken connections (close_old_connections), which asks an open
    one whether it is in autocommit mode: one left open by an earlier test of the process
    would be a database access these tests do not allow. They start with none."""
    with django_db_blocker.unblock():
        connections.close_all()


def never_called(request: HttpRequest) -> HttpResponse:
    raise AssertionError("process_exception only")


@pytest.mark.parametrize("error", [OperationalError("connection refused"), InterfaceError("gone")])
def test_an_api_path_answers_503_json_with_retry_after(error: Exception) -> None:
    request = RequestFactory().get("/api/tournaments/")

    response = DatabaseUnavailableMiddleware(never_called).process_exception(request, error)

    assert response is not None
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response.content == b'{"detail": "the database is unavailable; try again in a moment"}'
    assert response["Retry-After"] == "10"


def test_a_page_answers_a_503_page_with_retry_after() -> None:
    request = RequestFactory().get("/leagues/")

    response = DatabaseUnavailableMiddleware(never_called).process_exception(
        request, OperationalError("connection refused")
    )

    assert response is not None
    assert response.status_code == 503
    assert response["Retry-After"] == "10"
    assert b"database is not answering" in response.content


def test_other_errors_are_left_to_the_500_handler() -> None:
    request = RequestFactory().get("/leagues/")

    response = DatabaseUnavailableMiddleware(never_called).process_exception(
        request, ValueError("a bug")
    )

    assert response is None
