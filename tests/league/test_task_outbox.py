"""The transactional outbox (league/services/task_outbox.py) against real PostgreSQL and Redis.

- a task written in a transaction that rolls back is never sent;
- a committed task is sent when the transaction commits (not before) and its row deleted;
- with the broker cut, the task waits in the outbox with the reason, the process stops
  trying after commits for a while, and a relay sends everything once the broker is back;
- rows one relay is sending (locked) are skipped by another, so each is sent once.
"""

from __future__ import annotations

import base64
import json
import os
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from django.db import connections, transaction

import pytest
import redis
from celery import current_app

from league.models import OutboxTask
from league.services.task_outbox import (
    broker_presumed_down,
    broker_presumed_up,
    outbox_relay,
    task_enqueue,
)
from league.tasks import run_match as run_match_task
from tests.outages import OutageProxy

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]

QUEUE = "matches"  # where run_match goes (settings: CELERY_TASK_ROUTES)


@pytest.fixture(autouse=True)
def broker_not_presumed_down() -> Iterator[None]:
    broker_presumed_up()
    yield
    broker_presumed_up()


@pytest.fixture
def broker() -> redis.Redis:
    return redis.Redis.from_url(os.environ["REDIS_URL"])


@pytest.fixture
def broker_proxy() -> Iterator[OutageProxy]:
    parts = urlsplit(os.environ["REDIS_URL"])
    proxy = OutageProxy(parts.hostname or "127.0.0.1", parts.port or 6379)
    yield proxy
    proxy.close()


def sent_match_ids(broker: redis.Redis, since: int) -> list[int]:
    """The match ids of the run_match messages queued after the first ``since`` (kombu
    pushes on the left: the newest first)."""
    length = int(broker.llen(QUEUE))
    ids: list[int] = []
    for raw in broker.lrange(QUEUE, 0, length - since - 1):
        message: dict[str, Any] = json.loads(raw)
        assert message["headers"]["task"] == "league.tasks.run_match"
        args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
        ids.append(args[0])
    return sorted(ids)


@pytest.fixture
def queued_before(broker: redis.Redis) -> Iterator[int]:
    """The queue's length before the test; what the test added is removed afterwards."""
    before = int(broker.llen(QUEUE))
    yield before
    extra = int(broker.llen(QUEUE)) - before
    if extra > 0:
        broker.lpop(QUEUE, extra)


def test_a_task_written_in_a_transaction_that_rolls_back_is_never_sent(
    broker: redis.Redis, queued_before: int
) -> None:
    def change_that_fails() -> None:
        with transaction.atomic():
            task_enqueue(run_match_task, 9_000_001)
            raise RuntimeError("the change failed")

    with pytest.raises(RuntimeError):
        change_that_fails()

    assert not OutboxTask.objects.exists()
    assert broker.llen(QUEUE) == queued_before


def test_a_committed_task_is_sent_on_commit_and_its_row_deleted(
    broker: redis.Redis, queued_before: int
) -> None:
    with transaction.atomic():
        row = task_enqueue(run_match_task, 9_000_002)
        assert OutboxTask.objects.filter(pk=row.pk, task="league.tasks.run_match").exists()
        assert broker.llen(QUEUE) == queued_before  # nothing sent before the commit

    assert sent_match_ids(broker, queued_before) == [9_000_002]
    assert not OutboxTask.objects.exists()


def test_a_process_that_never_imported_the_tasks_sends_them_on_commit(
    broker: redis.Redis, queued_before: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The web process writes tasks by name and never imports league.tasks.
    monkeypatch.delitem(current_app.tasks, "league.tasks.run_match")
    with transaction.atomic():
        task_enqueue("league.tasks.run_match", 9_000_006)

    assert sent_match_ids(broker, queued_before) == [9_000_006]  # routed to its queue
    assert not OutboxTask.objects.exists()
    assert not broker_presumed_down()


def waiting(match_id: int) -> OutboxTask:
    """A row left in the outbox (its send after commit failed)."""
    return OutboxTask.objects.create(task="league.tasks.run_match", args=[match_id])


def test_with_the_broker_cut_tasks_wait_in_the_outbox_and_a_relay_sends_them_after(
    broker: redis.Redis, queued_before: int, broker_proxy: OutageProxy
) -> None:
    broker_url = broker_proxy.url_for(os.environ["REDIS_URL"])
    first = waiting(9_000_003)
    broker_proxy.cut()

    report = outbox_relay(broker_url=broker_url)

    assert (report.sent, report.waiting) == ([], 1)
    assert "refused" in report.error.lower()
    first.refresh_from_db()
    assert first.attempts == 1
    assert first.last_error == report.error
    assert broker_presumed_down()
    # A commit meanwhile does not wait for the broker: its task stays for the relays.
    second = task_enqueue(run_match_task, 9_000_004)
    second.refresh_from_db()
    assert second.attempts == 0
    assert broker.llen(QUEUE) == queued_before

    broker_proxy.restore()
    report = outbox_relay(broker_url=broker_url)

    assert sorted(report.sent) == sorted([first.pk, second.pk])
    assert (report.waiting, report.error) == (0, "")
    assert not OutboxTask.objects.exists()
    assert sent_match_ids(broker, queued_before) == [9_000_003, 9_000_004]
    assert not broker_presumed_down()


def test_rows_another_relay_is_sending_are_skipped(broker: redis.Redis, queued_before: int) -> None:
    row = waiting(9_000_005)
    locked = threading.Event()
    release = threading.Event()

    def other_relay() -> None:  # holds the row's lock, as a relay sending it does
        try:
            with transaction.atomic():
                list(OutboxTask.objects.select_for_update().filter(pk=row.pk))
                locked.set()
                release.wait(30)
        finally:
            connections.close_all()

    thread = threading.Thread(target=other_relay)
    thread.start()
    assert locked.wait(30)
    try:
        assert outbox_relay().sent == []
    finally:
        release.set()
        thread.join()

    assert outbox_relay().sent == [row.pk]
    assert sent_match_ids(broker, queued_before) == [9_000_005]
