"""tests/quick_flush.py: a transactional test's flush deletes every row a test can make, in
one round trip, and keeps what ``migrate`` made without sending ``post_migrate`` again."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.models.signals import post_migrate
from django.test.utils import CaptureQueriesContext

import pytest

from tests.quick_flush import KEPT_TABLES

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_flush_empties_the_tests_tables_in_one_statement_and_keeps_the_models_rows() -> None:
    User.objects.create_user("flushed")
    content_types, permissions = ContentType.objects.count(), Permission.objects.count()
    assert content_types > 0
    assert permissions > 0
    sent: list[dict[str, Any]] = []

    def receiver(**kwargs: Any) -> None:
        sent.append(kwargs)

    post_migrate.connect(receiver, dispatch_uid="test_quick_flush")
    try:
        with CaptureQueriesContext(connection) as queries:
            call_command("flush", interactive=False, verbosity=0, reset_sequences=False)
    finally:
        post_migrate.disconnect(dispatch_uid="test_quick_flush")
    deletes = [q["sql"] for q in queries.captured_queries if "DELETE FROM" in q["sql"]]
    assert len(deletes) == 1  # every table's DELETE in one round trip
    assert '"auth_user"' in deletes[0]
    assert not any(f'"{table}"' in deletes[0] for table in KEPT_TABLES)
    assert not User.objects.exists()
    assert (ContentType.objects.count(), Permission.objects.count()) == (content_types, permissions)
    assert sent == []  # post_migrate is not sent again: nothing it makes was deleted


def test_a_flush_that_resets_the_sequences_is_djangos_own() -> None:
    sent: list[dict[str, Any]] = []

    def receiver(**kwargs: Any) -> None:
        sent.append(kwargs)

    post_migrate.connect(receiver, dispatch_uid="test_quick_flush")
    try:
        call_command("flush", interactive=False, verbosity=0, reset_sequences=True)
    finally:
        post_migrate.disconnect(dispatch_uid="test_quick_flush")
    assert sent  # it emptied every table, so post_migrate makes the content types again
    assert ContentType.objects.exists()
