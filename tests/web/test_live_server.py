"""The tests' live server is production's web server: uvicorn with config.web_server's
options (tests/uvicorn_servers.py), serving pages and WebSockets from config.asgi."""

from __future__ import annotations

import json
import socket
import urllib.request
from typing import TYPE_CHECKING

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Event, Request, TextMessage

from config.web_server import uvicorn_options
from tests.uvicorn_servers import GRACEFUL_SHUTDOWN_SECONDS

if TYPE_CHECKING:
    from tests.uvicorn_servers import UvicornLiveServer

pytestmark = [pytest.mark.redis]

SOCKET_SECONDS = 10.0


def test_the_live_server_is_uvicorn_with_the_options_of_production(
    live_server: UvicornLiveServer,
) -> None:
    options = uvicorn_options()
    assert options["http"] == "httptools"  # installed with the project: C parser
    assert options["loop"] == "uvloop"
    for name, value in options.items():
        if name == "timeout_graceful_shutdown":  # the one difference: a test's server waits less
            assert live_server.config.timeout_graceful_shutdown == GRACEFUL_SHUTDOWN_SECONDS
            continue
        assert getattr(live_server.config, name) == value, name
    with urllib.request.urlopen(f"{live_server.url}/accounts/login/", timeout=30) as response:
        assert response.status == 200
        # No Server header: uvicorn's server_header=False (Django's WSGI server and daphne
        # both name themselves).
        assert response.headers.get("Server") is None
        assert b'name="username"' in response.read()


def events_until(
    connection: WSConnection, stream: socket.socket, wanted: type[Event]
) -> list[Event]:
    """Read from the socket until wsproto gives an event of the wanted kind."""
    seen: list[Event] = []
    while not any(isinstance(event, wanted) for event in seen):
        data = stream.recv(65536)
        assert data, f"the server closed the connection after {seen}"
        connection.receive_data(data)
        seen.extend(connection.events())
    return seen


def test_a_match_socket_of_the_live_server_gets_the_match_updates(
    live_server: UvicornLiveServer,
) -> None:
    """A real WebSocket through uvicorn's wsproto, the channel layer in Redis and the
    match consumer of config.asgi."""
    client = WSConnection(ConnectionType.CLIENT)
    with socket.create_connection(
        (live_server.host, live_server.port), timeout=SOCKET_SECONDS
    ) as stream:
        stream.sendall(
            client.send(
                Request(
                    host=f"{live_server.host}:{live_server.port}",
                    target="/ws/matches/7/",
                    extra_headers=[(b"origin", live_server.url.encode())],
                )
            )
        )
        events_until(client, stream, AcceptConnection)
        layer = get_channel_layer()
        assert layer is not None
        async_to_sync(layer.group_send)(
            "match-7", {"type": "league.update", "event": "update", "match": 7, "event_index": 3}
        )
        messages = [
            event.data
            for event in events_until(client, stream, TextMessage)
            if isinstance(event, TextMessage)
        ]
        assert json.loads(messages[0]) == {"type": "update", "match": 7, "event_index": 3}
