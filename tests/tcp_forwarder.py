"""A tiny TCP forwarder (asyncio), for tests whose processes live in another network
namespace: PostgreSQL and Redis listen on 127.0.0.1 only, and a worker host made by a test
(tests/network_hosts.py) reaches them through this forwarder, which listens on the root
namespace's end of the host's veth and connects to 127.0.0.1. The servers are not
reconfigured.

Run as a process of its own (so the test's own process, busy reading the database, does
not slow the traffic):

    python -m tests.tcp_forwarder 10.213.7.1:5432=127.0.0.1:5432 10.213.7.1:6379=127.0.0.1:6379

It prints ``listening`` once every listener is open, and runs until killed. Accepted
connections get short TCP keepalives: when a host's veth is cut, the forwarder notices
within seconds and closes the server side too, so PostgreSQL ends that session (and
rolls back whatever it held) as it would for a machine that vanished.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from dataclasses import dataclass

BUFFER_BYTES = 64 * 1024
KEEPALIVE_IDLE_SECONDS = 2
KEEPALIVE_INTERVAL_SECONDS = 1
KEEPALIVE_PROBES = 3


@dataclass(frozen=True)
class Route:
    listen_host: str
    listen_port: int
    target_host: str
    target_port: int

    @classmethod
    def parse(cls, text: str) -> Route:
        """``LISTEN_HOST:PORT=TARGET_HOST:PORT``."""
        listen, _, target = text.partition("=")
        listen_host, _, listen_port = listen.rpartition(":")
        target_host, _, target_port = target.rpartition(":")
        if not (listen_host and listen_port.isdigit() and target_host and target_port.isdigit()):
            raise ValueError(f"expected LISTEN_HOST:PORT=TARGET_HOST:PORT, got {text!r}")
        return cls(listen_host, int(listen_port), target_host, int(target_port))

    def __str__(self) -> str:
        return f"{self.listen_host}:{self.listen_port}={self.target_host}:{self.target_port}"


def keepalive_set(writer: asyncio.StreamWriter) -> None:
    sock: socket.socket | None = writer.get_extra_info("socket")
    if sock is None:
        return
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, KEEPALIVE_IDLE_SECONDS)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, KEEPALIVE_INTERVAL_SECONDS)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, KEEPALIVE_PROBES)
        # Unacknowledged data to a vanished peer also ends the connection soon.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, 5000)


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(BUFFER_BYTES):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def connection_forward(
    route: Route, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter
) -> None:
    keepalive_set(client_writer)
    try:
        server_reader, server_writer = await asyncio.open_connection(
            route.target_host, route.target_port
        )
    except OSError:
        client_writer.close()
        return
    both = [
        asyncio.ensure_future(pump(client_reader, server_writer)),
        asyncio.ensure_future(pump(server_reader, client_writer)),
    ]
    # Either side ending (or failing) ends the other: a cut host's session is closed.
    await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
    server_writer.close()
    client_writer.close()
    for task in both:
        task.cancel()


async def serve(routes: list[Route]) -> None:
    servers = []
    for route in routes:

        async def handle(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter, route: Route = route
        ) -> None:
            await connection_forward(route, reader, writer)

        servers.append(
            await asyncio.start_server(
                handle, route.listen_host, route.listen_port, reuse_address=True
            )
        )
    sys.stdout.write("listening\n")
    sys.stdout.flush()
    await asyncio.gather(*(server.serve_forever() for server in servers))


def main(arguments: list[str]) -> int:
    try:
        routes = [Route.parse(argument) for argument in arguments]
    except ValueError as exc:
        sys.stderr.write(f"tcp_forwarder: {exc}\n")
        return 2
    if not routes:
        sys.stderr.write("tcp_forwarder: no route (LISTEN_HOST:PORT=TARGET_HOST:PORT ...)\n")
        return 2
    asyncio.run(serve(routes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
