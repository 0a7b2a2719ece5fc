"""One HTTP request through an ASGI application, in process: the tests' and the benches'
way to call Django's handler without a server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


def http_scope(path: str) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }


class AsgiClient:
    """A client's side of one request: its (empty) body, then nothing until it leaves
    (``leave.set()``); every message the application sends is kept in ``sent`` and, if
    given, passed to ``on_send``."""

    def __init__(self, on_send: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.leave = asyncio.Event()
        self.sent: list[dict[str, Any]] = []
        self._on_send = on_send
        self._asked = False

    async def receive(self) -> dict[str, Any]:
        if not self._asked:
            self._asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.leave.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        if self._on_send is not None:
            self._on_send(message)

    def status(self) -> int:
        (start,) = [message for message in self.sent if message["type"] == "http.response.start"]
        return int(start["status"])


async def asgi_get(application: Any, path: str) -> int:
    """GET ``path`` through ``application``; the answer's status."""
    client = AsgiClient()
    await application(http_scope(path), client.receive, client.send)
    return client.status()
