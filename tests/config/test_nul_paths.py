"""A NUL byte in a path is a 404 (config/nul_paths.py): the site's 404 page for a page,
the API's JSON 404 under /api/, whatever the path would otherwise name; through Django's
synchronous and asynchronous handlers (the site runs under ASGI)."""

from __future__ import annotations

from django.test import AsyncClient, Client

import pytest
from asgiref.sync import async_to_sync

from tests.league.builders import user_create

PAGE_PATHS = (
    "/people/a%00b/",
    "/people/ann%00/",
    "/join/ab%00cd/",
    "/club/table/ab%00cd/",
    "/tables/invitations/ab%00cd/",
    "/ladders/a%00b/",
    "/%00",
    "/no-such-page%00/",
)
API_PATHS = (
    "/api/people/a%00b/",
    "/api/people/ann%00/",
    "/api/club-tables/ab%00cd/",
    "/api/%00",
)


@pytest.mark.django_db
@pytest.mark.parametrize("path", PAGE_PATHS)
def test_a_page_path_with_nul_is_not_found(path: str) -> None:
    user_create("ann")
    response = Client().get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.django_db
@pytest.mark.parametrize("path", API_PATHS)
def test_an_api_path_with_nul_is_a_json_not_found(path: str) -> None:
    user_create("ann")
    response = Client().get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_a_write_to_a_path_with_nul_is_not_found(method: str) -> None:
    client = Client()
    client.force_login(user_create("ann"))
    response = getattr(client, method)("/api/people/a%00b/")
    assert response.status_code == 404


@pytest.mark.django_db(transaction=True)
def test_under_asgi_a_path_with_nul_is_not_found() -> None:
    client = AsyncClient()
    page = async_to_sync(client.get)("/people/a%00b/")
    api = async_to_sync(client.get)("/api/people/a%00b/")
    assert (page.status_code, api.status_code) == (404, 404)
    assert api["Content-Type"] == "application/json"


@pytest.mark.django_db
def test_the_same_path_without_nul_is_found() -> None:
    """The check refuses only the NUL: the names around it still resolve."""
    user_create("ann")
    assert Client().get("/people/ann/").status_code == 200
    assert Client().get("/api/people/ann/").status_code == 200
