"""The web forms that upload a bot or open a table count in the API's allowances
(api/throttles.py, web/throttling.py): over the limit, a 429 page with the message and
Retry-After, and nothing is done. PostgreSQL and the real Redis cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

import pytest

from bots.models import BotVersion
from league.models import Match
from tests.league.builders import user_create

if TYPE_CHECKING:
    from pytest_django.fixtures import Settings

EXAMPLE_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "random_bot.py"

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db]


def rates_set(settings: Settings, **rates: str) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates},
    }


def assert_too_many_page(response: Any, *, within: int, says: str) -> None:
    assert response.status_code == 429, response.content[:2000]
    assert 1 <= int(response["Retry-After"]) <= within
    page = response.content.decode()
    assert "<h1>Too many requests</h1>" in page
    assert says in page, page


def test_an_upload_through_the_page_counts_in_the_apis_allowance(settings: Settings) -> None:
    rates_set(settings, uploads="1/hour")
    ann = user_create("ann")
    api = APIClient()
    api.force_authenticate(ann)
    bot = api.post("/api/bots/", {"name": "Rando", "families": ["kingen"]}, format="json").json()
    file = SimpleUploadedFile("random_bot.py", EXAMPLE_BOT.read_bytes())
    assert (
        api.post(f"/api/bots/{bot['id']}/versions/", {"file": file}, format="multipart").status_code
        == 201
    )

    page = Client()
    page.force_login(ann)
    file = SimpleUploadedFile("random_bot.py", EXAMPLE_BOT.read_bytes())
    response = page.post(f"/bots/{bot['id']}/upload/", {"file": file})
    assert_too_many_page(response, within=3600, says="Too many bot uploads: at most 1 in an hour.")
    assert BotVersion.objects.count() == 1
    assert page.get(f"/bots/{bot['id']}/").status_code == 200  # the bot's page still opens


def test_opening_tables_through_the_page_is_limited(settings: Settings) -> None:
    rates_set(settings, tables="1/hour")
    page = Client()
    page.force_login(user_create("ann"))
    form = {"form": "quick", "quick-game": "kingen", "quick-opponents": "random"}
    assert page.post("/play/", form).status_code == 302
    assert_too_many_page(
        page.post("/play/", form), within=3600, says="Too many new tables: at most 1 in an hour."
    )
    assert Match.objects.count() == 1
    assert page.get("/play/").status_code == 200  # the form itself is not limited
