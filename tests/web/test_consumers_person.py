"""The person's socket, /ws/me/: it joins the signed-in person's own group, says
{"type": "counts"} when a game starts waiting for their move (the league pushes it on
commit), carries nothing of another person's, and refuses a visitor."""

from __future__ import annotations

from collections.abc import Iterator

from django.contrib.auth.models import User
from django.test import override_settings

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from engine import load_game
from league.models import Match, MatchStatus
from league.services.matches import match_run
from league.services.tables import table_open
from tests.web.test_consumers import IN_MEMORY

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def in_memory_layer() -> Iterator[None]:
    with override_settings(CHANNEL_LAYERS=IN_MEMORY):
        yield


def socket_of(user: User | None) -> WebsocketCommunicator:
    headers = [(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]
    communicator = WebsocketCommunicator(application, "/ws/me/", headers=headers)
    if user is not None:
        # The user the session's auth middleware would find (the test scope's type omits it).
        communicator.scope["user"] = user  # type: ignore[typeddict-unknown-key]
    return communicator


def table_waiting_for(user: User) -> int:
    """Open a table of the person and the bots and play the bots until the person acts."""
    seed = next(s for s in range(100) if load_game("kingen").new_initial_state(seed=s).dealer)
    match = table_open(
        actor=user,
        game="kingen",
        seats=["me", "builtin:greedy", "builtin:greedy", "builtin:random"],
    )
    Match.objects.filter(pk=match.pk).update(seed=seed)
    match_run(match_id=match.pk, worker="test")
    match.refresh_from_db()
    assert (match.status, match.waiting_seat) == (MatchStatus.RUNNING, 0)
    return match.pk


async def _a_person_hears_when_a_game_waits_for_them_and_nobody_else_does() -> None:
    ann = await sync_to_async(User.objects.create_user)("ann", "ann@example.org", "pw 123456 x")
    eve = await sync_to_async(User.objects.create_user)("eve", "eve@example.org", "pw 123456 x")
    hers, others = socket_of(ann), socket_of(eve)
    assert (await hers.connect())[0]
    assert (await others.connect())[0]
    await sync_to_async(table_waiting_for)(ann)
    assert await hers.receive_json_from(timeout=5) == {"type": "counts"}
    assert await others.receive_nothing(timeout=0.3)
    await hers.disconnect()
    await others.disconnect()


def test_a_person_hears_when_a_game_waits_for_them_and_nobody_else_does() -> None:
    async_to_sync(_a_person_hears_when_a_game_waits_for_them_and_nobody_else_does)()


async def _a_visitors_socket_is_refused() -> None:
    socket = WebsocketCommunicator(
        application, "/ws/me/", headers=[(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]
    )
    connected, _ = await socket.connect()
    assert not connected


def test_a_visitors_socket_is_refused() -> None:
    async_to_sync(_a_visitors_socket_is_refused)()
