from django.db import transaction

import pytest
from pytest_django import DjangoCaptureOnCommitCallbacks

from league.models import Heartbeat
from league.services.heartbeats import heartbeat_record, heartbeat_send
from league.tasks import heartbeat_record as heartbeat_record_task


@pytest.mark.django_db
def test_heartbeat_send_enqueues_only_when_the_transaction_commits(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks, transaction.atomic():
        token = heartbeat_send(token="after-commit")
        assert callbacks == []  # nothing is sent while the transaction is open

    assert token == "after-commit"
    assert len(callbacks) == 1


@pytest.mark.django_db
def test_heartbeat_send_makes_up_a_token_when_none_is_given(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    with django_capture_on_commit_callbacks(execute=False), transaction.atomic():
        first = heartbeat_send()
        second = heartbeat_send()

    assert first != second
    assert len(first) == 32


@pytest.mark.django_db
def test_heartbeat_record_is_idempotent_for_a_redelivered_task() -> None:
    heartbeat_record_task("twice")  # the task body, run in process
    again = heartbeat_record(token="twice")

    assert Heartbeat.objects.filter(token="twice").count() == 1
    assert again.token == "twice"
