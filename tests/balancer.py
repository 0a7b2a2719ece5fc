"""HAProxy in front of the tests' web hosts: Debian's haproxy running deploy/haproxy.cfg, the
file shipped for deployment, with its addresses in the environment (HAProxy expands them).

``balancer(servers, log_path=...)`` starts it on a free port of 127.0.0.1, in front of two
web machines (``address:port`` each), and yields once it listens; its log (every request,
with the server that answered it, and each server going down or up) goes to ``log_path``.
``Balancer.served()`` reads that log back. Needs the haproxy package (the ``balancer``
marker, tests/servers.py; .ci/run installs it).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.celery_workers import REPOSITORY_ROOT
from tests.servers import closed_port

HAPROXY = os.environ.get("HAPROXY", "/usr/sbin/haproxy")
CONFIG = REPOSITORY_ROOT / "deploy" / "haproxy.cfg"
START_SECONDS = 15.0
STOP_SECONDS = 10.0
SERVER_NAMES = ("web1", "web2")
"""deploy/haproxy.cfg's servers (and their cookies), in the order of ``balancer``'s."""
COOKIE = "kl_web"
"""The balancer's stickiness cookie: its value names the server a browser keeps to."""

LOGGED_REQUEST = re.compile(r' site web/(?P<server>\S+) .*"(?P<method>[A-Z]+) (?P<path>\S+) ')
"""A request in HAProxy's HTTP log (``option httplog``): the frontend, backend/server, and the
request line in quotes."""


def haproxy_unavailable_reason() -> str | None:
    """Why the balancer cannot run here; None when Debian's haproxy is installed."""
    if shutil.which(HAPROXY) is None:
        return f"{HAPROXY} is missing (apt-get install haproxy)"
    return None


@dataclass(frozen=True)
class Served:
    """A request the balancer passed on: the server that answered it, its method and path."""

    server: str
    method: str
    path: str


@dataclass
class Balancer:
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def served(self) -> list[Served]:
        """Every request logged so far (HAProxy logs one when it ends: a WebSocket's when it
        closes)."""
        return [
            Served(found["server"], found["method"], found["path"])
            for found in map(LOGGED_REQUEST.search, self.log().splitlines())
            if found is not None
        ]


@contextlib.contextmanager
def balancer(
    servers: Sequence[str], *, log_path: Path, site_host: str = "localhost"
) -> Iterator[Balancer]:
    """deploy/haproxy.cfg on a free port of 127.0.0.1 in front of ``servers`` (two
    ``address:port``), its health checks asking for ``site_host``; stopped afterwards."""
    assert len(servers) == len(SERVER_NAMES), servers
    port = closed_port()
    environment = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        "KING_LEAGUE_BIND": f"127.0.0.1:{port}",
        "KING_LEAGUE_HOST": site_host,
        "KING_LEAGUE_LOG": "stdout",
        "KING_LEAGUE_WEB1": servers[0],
        "KING_LEAGUE_WEB2": servers[1],
    }
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [HAPROXY, "-db", "-f", str(CONFIG)],
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    running = Balancer(f"http://127.0.0.1:{port}", process, log_path)
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"haproxy did not start:\n{running.log()}")
            time.sleep(0.05)
        yield running
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=STOP_SECONDS)


def _listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0
