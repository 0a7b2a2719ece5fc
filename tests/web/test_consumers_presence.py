"""Presence on the match's socket (web.consumers.MatchConsumer; docs/web.md, *Presence*):
every socket gets who is at the table when it opens and in answer to its heartbeat; the
watchers hear at once when a seated person's page opens or closes; a watcher's socket counts
for nobody, and nothing about the cards is said."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.contrib.auth.models import User
from django.test import override_settings

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from league.models import SeatConnection, SeatInvitation
from league.services.tables import seat_invitation_accept, table_open
from tests.web.test_consumers import IN_MEMORY

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def in_memory_layer() -> Iterator[None]:
    with override_settings(CHANNEL_LAYERS=IN_MEMORY):
        yield


def socket_of(user: User, match_id: int) -> WebsocketCommunicator:
    headers = [(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]
    communicator = WebsocketCommunicator(application, f"/ws/matches/{match_id}/", headers=headers)
    communicator.scope["user"] = user  # type: ignore[typeddict-unknown-key]
    return communicator


def table_of_ann_and_bob() -> tuple[int, User, User, User]:
    ann, bob, eve = (
        User.objects.create_user(name, f"{name}@example.org", "pw 123456 x")
        for name in ("ann", "bob", "eve")
    )
    match = table_open(
        actor=ann, game="kingen", seats=["me", "invite:bob", "builtin:greedy", "builtin:greedy"]
    )
    seat_invitation_accept(user=bob, code=SeatInvitation.objects.get(match=match, seat=1).code)
    return match.pk, ann, bob, eve


def connected(message: dict[str, Any]) -> dict[int, bool]:
    assert message["type"] == "presence"
    return {entry["seat"]: entry["connected"] for entry in message["seats"]}


async def _the_watchers_hear_a_seated_person_come_and_go() -> None:
    match_id, _ann, bob, eve = await sync_to_async(table_of_ann_and_bob)()
    watcher = socket_of(eve, match_id)
    assert (await watcher.connect())[0]
    assert connected(await watcher.receive_json_from(timeout=5)) == {0: False, 1: False}
    bobs = socket_of(bob, match_id)
    assert (await bobs.connect())[0]
    assert connected(await watcher.receive_json_from(timeout=5)) == {0: False, 1: True}
    await watcher.send_json_to({"type": "here"})
    answer = await watcher.receive_json_from(timeout=5)
    assert connected(answer) == {0: False, 1: True}
    assert not {"hand", "cards", "view", "legal"} & {k for e in answer["seats"] for k in e}
    await bobs.disconnect()
    assert connected(await watcher.receive_json_from(timeout=5)) == {0: False, 1: False}
    await watcher.disconnect()
    rows = await sync_to_async(lambda: list(SeatConnection.objects.values_list("seat", "closed")))()
    assert rows == [(1, True)]  # bob's, closed; none of the watcher's


def test_the_watchers_hear_a_seated_person_come_and_go() -> None:
    async_to_sync(_the_watchers_hear_a_seated_person_come_and_go)()
