"""The 503 answers while the database is unreachable (config/database_outage.py), unit-level;
tests/league/test_outages.py cuts a real database under a web process."""

from __future__ import annotations

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

import pytest

from config.database_outage import DatabaseUnavailableMiddleware


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
