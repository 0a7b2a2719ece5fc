"""The WebSocket consumers forward the league's channel-layer messages to the browser."""

from collections.abc import Iterator
from typing import Any

from django.test import override_settings

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application
from web.consumers import browser_message

# The auth middleware of the socket route touches the database (old connections, sessions).
pytestmark = pytest.mark.django_db(transaction=True)

IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.fixture(autouse=True)
def in_memory_layer() -> Iterator[None]:
    with override_settings(CHANNEL_LAYERS=IN_MEMORY):
        yield


def communicator(path: str) -> WebsocketCommunicator:
    # The origin validator wants a Host header of an allowed host.
    return WebsocketCommunicator(
        application, path, headers=[(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]
    )


async def send_to_group(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    assert layer is not None
    await layer.group_send(group, message)


async def _match_socket_forwards_updates_of_its_match_only() -> None:
    mine, other = communicator("/ws/matches/7/"), communicator("/ws/matches/8/")
    connected, _ = await mine.connect()
    assert connected
    assert (await other.connect())[0]
    await send_to_group(
        "match-7", {"type": "league.update", "event": "update", "match": 7, "event_index": 12}
    )
    assert await mine.receive_json_from(timeout=2) == {
        "type": "update",
        "match": 7,
        "event_index": 12,
    }
    assert await other.receive_nothing(timeout=0.2)
    await mine.disconnect()
    await other.disconnect()


def test_match_socket_forwards_updates_of_its_match_only() -> None:
    async_to_sync(_match_socket_forwards_updates_of_its_match_only)()


async def _tournament_socket_forwards_progress() -> None:
    socket = communicator("/ws/tournaments/3/")
    assert (await socket.connect())[0]
    await send_to_group(
        "tournament-3",
        {"type": "league.update", "event": "progress", "tournament": 3, "finished": 2, "total": 6},
    )
    assert await socket.receive_json_from(timeout=2) == {
        "type": "progress",
        "tournament": 3,
        "finished": 2,
        "total": 6,
    }
    await socket.disconnect()


def test_tournament_socket_forwards_progress() -> None:
    async_to_sync(_tournament_socket_forwards_progress)()


async def _a_nested_message_is_forwarded_as_it_is() -> None:
    socket = communicator("/ws/matches/5/")
    assert (await socket.connect())[0]
    message = {"type": "update", "match": 5, "event_index": 3}
    await send_to_group("match-5", {"type": "league.update", "message": message})
    assert await socket.receive_json_from(timeout=2) == message
    await socket.disconnect()


def test_a_nested_message_is_forwarded_as_it_is() -> None:
    async_to_sync(_a_nested_message_is_forwarded_as_it_is)()


async def _a_path_without_a_numeric_id_is_refused() -> None:
    socket = communicator("/ws/matches/abc/")
    with pytest.raises(ValueError, match="No route found"):
        await socket.connect()


def test_a_path_without_a_numeric_id_is_refused() -> None:
    async_to_sync(_a_path_without_a_numeric_id_is_refused)()


def test_browser_message_keeps_the_fields_and_sets_the_type() -> None:
    assert browser_message({"type": "league.update", "match": 1}, "update") == {
        "type": "update",
        "match": 1,
    }
    assert browser_message({"type": "league.update", "event": "progress"}, "update") == {
        "type": "progress"
    }
