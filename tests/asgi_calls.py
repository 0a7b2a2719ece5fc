"""One HTTP request through an ASGI application, in process: the tests' and the benches'
way to call Django's handler without a server."""

from __future__ import annotations

import asyncio
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


async def asgi_get(application: Any, path: str) -> int:
    """GET ``path`` through ``application``; the answer's status."""
    sent: list[dict[str, Any]] = []
    asked = False

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(3600)  # the client stays until the answer is sent
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await application(http_scope(path), receive, send)
    (start,) = [message for message in sent if message["type"] == "http.response.start"]
    return int(start["status"])
