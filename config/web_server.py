"""The production web server: uvicorn with several worker processes, each serving both HTTP
(Django) and WebSockets (Channels) of config.asgi (docs/operations.md, "The web server").

    python -m config.web_server --host 127.0.0.1 --port 8000 [--processes N]

Why uvicorn: one well-kept ASGI server (Encode's, the one Django's and Channels' docs name
first) whose own process manager starts N workers on one listening socket and restarts one
that dies, with a C HTTP parser (httptools) and event loop (uvloop). One daphne process
(before) used one core at most; 20 readers queued behind it. WebSockets stay in every
worker: a table's updates reach a socket of any worker through the channel layer in Redis.

``--processes`` (or WEB_PROCESSES) defaults to two a core (at most 8) when REDIS_URL is
set, and to 1 without it: the in-memory channel layer of a machine without Redis is per
process, so a second process would miss the first one's table updates.
Bad configuration: one line naming the variable, exit status 2 (like preflight).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
from collections.abc import Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from config.configuration import WEB_DATABASE_POOL_SIZE, var_dir_from_env

PROCESSES_PER_CORE = 2
"""Django runs a request's synchronous middleware and view in one thread per process: a
process waiting on PostgreSQL or Redis leaves its core idle, so two a core keep it busy."""
MAX_DEFAULT_PROCESSES = 8
GRACEFUL_SHUTDOWN_SECONDS = 20
HUNG_SECONDS = 60
"""A web process that does not answer its manager's ping for this long is hung and is
replaced (WEB_PROCESS_HUNG_SECONDS). uvicorn's default, 5 s, killed healthy processes of a
busy machine (load 12-62 on two cores: 8 and 15 times in 11-13 minutes), each replacement
taking 30-60 s to start there: a process that answers nothing for a minute is hung; one
that answers late is busy."""


class WebServerConfigurationError(Exception):
    """A bad WEB_PROCESSES or --processes: its message names the variable."""


def processes_from(environ: Mapping[str, str], given: int | None, cores: int) -> int:
    """How many web processes: ``given`` (--processes), else WEB_PROCESSES, else two a core
    (at most 8) with Redis and 1 without."""
    has_redis = bool(environ.get("REDIS_URL", "").strip())
    if given is not None:
        count, variable = given, "--processes"
    elif environ.get("WEB_PROCESSES", "").strip():
        text = environ["WEB_PROCESSES"].strip()
        if not text.isdigit():
            raise WebServerConfigurationError(f"WEB_PROCESSES: expected a count, got {text!r}")
        count, variable = int(text), "WEB_PROCESSES"
    else:
        return max(1, min(PROCESSES_PER_CORE * cores, MAX_DEFAULT_PROCESSES)) if has_redis else 1
    if count < 1:
        raise WebServerConfigurationError(f"{variable}: at least 1, got {count}")
    if count > 1 and not has_redis:
        raise WebServerConfigurationError(
            f"{variable}: {count} web processes need REDIS_URL (their WebSockets share "
            "Redis's channel layer); without Redis run 1"
        )
    return count


def hung_seconds_from(environ: Mapping[str, str]) -> int:
    """WEB_PROCESS_HUNG_SECONDS, or HUNG_SECONDS; at least 1."""
    text = environ.get("WEB_PROCESS_HUNG_SECONDS", "").strip()
    if not text:
        return HUNG_SECONDS
    if not text.isdigit() or int(text) < 1:
        raise WebServerConfigurationError(
            f"WEB_PROCESS_HUNG_SECONDS: expected whole seconds, at least 1, got {text!r}"
        )
    return int(text)


def metrics_directory_prepare(environ: MutableMapping[str, str], port: int) -> Path:
    """Before several processes start: an empty folder of this server's (by its port, under
    VAR_DIR) where each process writes its request counts, named in the environment they
    inherit (PROMETHEUS_MULTIPROC_DIR: prometheus_client's multiprocess mode, summed by
    config/metrics.py whichever process is scraped). Emptied first: counts a server stopped
    earlier left would be summed with the new ones."""
    var_dir = var_dir_from_env(environ, default=Path(__file__).resolve().parent.parent / "var")
    directory = var_dir / "metrics" / str(port)
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    environ["PROMETHEUS_MULTIPROC_DIR"] = str(directory)
    return directory


def uvicorn_options() -> dict[str, Any]:
    """How uvicorn serves the site, in production and in the tests' live servers
    (tests/uvicorn_servers.py): everything but the address and the number of processes."""
    return {
        "loop": "uvloop" if importlib.util.find_spec("uvloop") else "asyncio",
        "http": "httptools" if importlib.util.find_spec("httptools") else "h11",
        "ws": "wsproto",  # a dependency of the project (pyproject.toml); not the websockets library
        "lifespan": "off",  # Django's ASGI handler has no lifespan events
        # The client's address is REMOTE_ADDR; TRUSTED_PROXIES decides about
        # X-Forwarded-For in the site (config/settings.py), not the server.
        "proxy_headers": False,
        "server_header": False,
        "access_log": False,
        "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_SECONDS,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--processes", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        processes = processes_from(os.environ, args.processes, os.cpu_count() or 1)
        hung_seconds = hung_seconds_from(os.environ)
    except WebServerConfigurationError as exc:
        sys.stderr.write(f"king-league: {exc}\n")
        return 2
    if processes > 1:
        metrics_directory_prepare(os.environ, args.port)
    # A web process serves each request in flight in a thread of its own, so it may want as
    # many connections at once as it has requests: its pool may grow to
    # WEB_DATABASE_POOL_SIZE (it keeps one open, and what a burst opened for five idle
    # minutes) unless DATABASE_POOL_SIZE is given (0: a connection a request). Measured
    # by bench.web_reads --pools (docs/operations.md, "Database connections").
    os.environ.setdefault("DATABASE_POOL_SIZE", str(WEB_DATABASE_POOL_SIZE))
    import uvicorn

    uvicorn.run(
        "config.asgi:application",
        host=args.host,
        port=args.port,
        workers=processes,
        timeout_worker_healthcheck=hung_seconds,
        **uvicorn_options(),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
