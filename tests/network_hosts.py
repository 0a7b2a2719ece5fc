"""Hosts on this machine (worker and web machines): network namespaces with addresses of
their own.

``network_hosts(count)`` makes ``count`` hosts, each a network namespace (``ip netns add``)
joined to the root namespace by a veth pair on a private /30 of its own (10.213.N.x), with
nothing but its loopback and that link: a process in it reaches 127.0.0.1 of its own
namespace, not the machine's. PostgreSQL and Redis listen on the machine's 127.0.0.1 only
and are not reconfigured: a forwarder (tests/tcp_forwarder.py, a process in the root
namespace) listens on the root end of each host's veth and connects to them, so a host's
DATABASE_URL and REDIS_URL name its gateway's address, as a worker machine's name a
database server's (``servers_forwarded``, and ``host_environment`` for a process of a host).

Everything is removed afterwards, also when the test fails: the hosts' processes are
killed, the namespaces deleted (which deletes the veth pairs) and the forwarder stopped.
Namespaces left by a run that was itself killed (their creator's process id is gone) are
removed the next time. Needs root and iproute2 (the ``netns`` marker, tests/servers.py).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tests.celery_workers import REPOSITORY_ROOT

PREFIX = "kl-host-"
POSTGRES_PORT, REDIS_PORT = 5432, 6379
"""The ports a host reaches PostgreSQL and Redis on, at its gateway's address."""
COMMAND_SECONDS = 10.0
FORWARDER_START_SECONDS = 15.0
KILL_SECONDS = 10.0


class NetworkHostsError(Exception):
    """An ``ip`` command failed; the message has its output."""


def ip(*arguments: str, check: bool = True) -> str:
    completed = subprocess.run(
        ["ip", *arguments], capture_output=True, text=True, timeout=COMMAND_SECONDS, check=False
    )
    if check and completed.returncode != 0:
        raise NetworkHostsError(f"ip {' '.join(arguments)}: {completed.stderr.strip()}")
    return completed.stdout


def netns_unavailable_reason() -> str | None:
    """Why hosts cannot be made here (not root, no iproute2, no namespaces); None
    when a namespace can be added and deleted."""
    if os.geteuid() != 0:
        return "making network namespaces needs root"
    probe = f"{PREFIX}probe-{os.getpid()}"
    try:
        ip("netns", "add", probe)
        ip("netns", "del", probe)
    except FileNotFoundError:
        return "the ip command (iproute2) is not installed"
    except (NetworkHostsError, subprocess.TimeoutExpired) as exc:
        return f"cannot make a network namespace: {exc}"
    return None


@dataclass(frozen=True)
class NetworkHost:
    """One host: its namespace, its address and its gateway's (the forwarder's)."""

    name: str
    """A short name: a, b, ..."""
    netns: str
    root_link: str
    address: str
    gateway: str

    @property
    def command_prefix(self) -> list[str]:
        """Run a command on this host."""
        return ["ip", "netns", "exec", self.netns]

    def url_for(self, url: str, port: int) -> str:
        """``url`` (postgres://, redis://) as this host reaches it: through the forwarder
        on its gateway's ``port``."""
        parts = urlsplit(url)
        credentials = parts.netloc.rpartition("@")[0]
        where = f"{self.gateway}:{port}"
        return urlunsplit(parts._replace(netloc=f"{credentials}@{where}" if credentials else where))

    def pids(self) -> list[int]:
        """Every process whose network is this host's (its workers and their pools, its web
        server)."""
        return [int(pid) for pid in ip("netns", "pids", self.netns, check=False).split()]

    def kill(self) -> list[int]:
        """SIGKILL every process of the host, as a machine that loses its power; the
        processes killed."""
        killed: list[int] = []
        deadline = time.monotonic() + KILL_SECONDS
        while (pids := self.pids()) and time.monotonic() < deadline:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
            time.sleep(0.05)
        return killed

    def cut(self) -> None:
        """Take the host's link down: nothing reaches it, nothing leaves it."""
        ip("link", "set", "dev", self.root_link, "down")


def _stale_remove() -> None:
    """Remove namespaces made by runs whose process is gone."""
    for line in ip("netns", "list", check=False).splitlines():
        name = line.split()[0] if line.split() else ""
        found = re.fullmatch(rf"{re.escape(PREFIX)}(\d+)-\w+", name)
        if found is None or Path(f"/proc/{found.group(1)}").exists():
            continue
        _netns_remove(name)


def _netns_remove(netns: str) -> None:
    for pid in ip("netns", "pids", netns, check=False).split():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)
    ip("netns", "del", netns, check=False)


def _free_subnet() -> ipaddress.IPv4Network:
    """A /24 in 10.213.0.0/16 that no address of this machine is in."""
    used = ip("-4", "-o", "addr", "show", check=False)
    taken = {
        ipaddress.ip_interface(m).network.supernet(new_prefix=24)
        for m in re.findall(r"inet (\S+)", used)
        if ipaddress.ip_interface(m).network.prefixlen >= 24
    }
    choices = list(ipaddress.IPv4Network("10.213.0.0/16").subnets(new_prefix=24))
    random.shuffle(choices)
    for network in choices:
        if network not in taken:
            return network
    raise NetworkHostsError("no free /24 in 10.213.0.0/16")


@contextlib.contextmanager
def network_hosts(count: int) -> Iterator[list[NetworkHost]]:
    """``count`` hosts, removed afterwards (even when the body fails)."""
    _stale_remove()
    subnet = _free_subnet()
    token = f"{os.getpid() % 100000}{random.randrange(36**2):02x}"
    hosts: list[NetworkHost] = []
    try:
        for index in range(count):
            name = "abcdefgh"[index]
            netns = f"{PREFIX}{os.getpid()}-{name}"
            root_link, host_link = f"klr{token}{name}", f"klh{token}{name}"
            gateway = str(subnet[4 * index + 1])
            address = str(subnet[4 * index + 2])
            ip("netns", "add", netns)
            host = NetworkHost(name, netns, root_link, address, gateway)
            hosts.append(host)
            ip("link", "add", root_link, "type", "veth", "peer", "name", host_link)
            ip("link", "set", host_link, "netns", netns)
            ip("addr", "add", f"{gateway}/30", "dev", root_link)
            ip("link", "set", "dev", root_link, "up")
            ip("-n", netns, "addr", "add", f"{address}/30", "dev", host_link)
            ip("-n", netns, "link", "set", "dev", host_link, "up")
            ip("-n", netns, "link", "set", "dev", "lo", "up")
        yield hosts
    finally:
        for host in hosts:
            _netns_remove(host.netns)  # its veth end goes with it, and so the root end
            ip("link", "del", host.root_link, check=False)


@dataclass
class Forwarder:
    process: subprocess.Popen[bytes]
    log_path: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=KILL_SECONDS)


@contextlib.contextmanager
def forwarder(routes: Sequence[str], log_path: Path) -> Iterator[Forwarder]:
    """tests/tcp_forwarder.py in a process of its own, listening once this yields."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.tcp_forwarder", *routes],
            cwd=REPOSITORY_ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    running = Forwarder(process, log_path)
    try:
        deadline = time.monotonic() + FORWARDER_START_SECONDS
        while b"listening" not in log_path.read_bytes():
            if process.poll() is not None or time.monotonic() > deadline:
                raise NetworkHostsError(f"the forwarder did not start:\n{log_path.read_text()}")
            time.sleep(0.05)
        yield running
    finally:
        running.stop()


def server_port(url: str) -> int:
    """The port of a postgres:// or redis:// URL (the scheme's default when it has none)."""
    parts = urlsplit(url)
    return parts.port or (POSTGRES_PORT if parts.scheme.startswith("postgres") else REDIS_PORT)


@contextlib.contextmanager
def servers_forwarded(
    hosts: Sequence[NetworkHost], *, database_url: str, redis_url: str, log_path: Path
) -> Iterator[Forwarder]:
    """PostgreSQL and Redis, as ``database_url`` and ``redis_url`` name them on this machine,
    reached by every host at its gateway's address (``host_environment``)."""
    routes = [
        f"{host.gateway}:{port}=127.0.0.1:{server_port(url)}"
        for host in hosts
        for port, url in ((POSTGRES_PORT, database_url), (REDIS_PORT, redis_url))
    ]
    with forwarder(routes, log_path) as running:
        yield running


def host_environment(host: NetworkHost, environment: Mapping[str, str]) -> dict[str, str]:
    """``environment`` (with this machine's DATABASE_URL and REDIS_URL) for a process of
    ``host``: the servers' URLs as the host reaches them (``servers_forwarded``)."""
    return dict(environment) | {
        "DATABASE_URL": host.url_for(environment["DATABASE_URL"], POSTGRES_PORT),
        "REDIS_URL": host.url_for(environment["REDIS_URL"], REDIS_PORT),
    }
