"""The tests' live servers run what production runs: uvicorn serving config.asgi with
config.web_server's options (httptools, uvloop, wsproto's WebSockets).

- ``UvicornLiveServer`` serves in a thread of the test process. tests/conftest.py makes it
  the ``live_server`` fixture in place of pytest-django's (Django's WSGI server): a test's
  ``settings`` changes reach the pages it opens, and the test database is the process's
  own (a test with ``live_server`` gets ``transactional_db``, as with pytest-django).
  Static files are served from the apps' folders (Django's ASGIStaticFilesHandler), as
  pytest-django's server did, so no ``collectstatic`` is needed.
- ``web_server_command`` is the command of production's web server
  (``python -m config.web_server``) for the tests that start the site in a process of its
  own, with its own environment (tests/api/conftest.py, tests/web/test_browser_league.py);
  ``web_server_process`` starts it, waits until it answers, and stops it.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from channels.layers import ChannelLayerManager

if TYPE_CHECKING:
    from django.test.utils import modify_settings

    import uvicorn

SERVER_START_SECONDS = 60.0
SERVER_STOP_SECONDS = 30.0
GRACEFUL_SHUTDOWN_SECONDS = 1.0
"""How long the in-process server waits for its connections to end when it stops.
Production's server waits up to 20 s; the tests' is stopped when its last test is over,
and whatever its browsers left open then kept every test process that served a browser
waiting those 20 s at its end (measured: 25 s of teardown after tests/web/test_accessibility.py,
6 s with this)."""


def web_server_command(port: int, host: str = "127.0.0.1", processes: int = 1) -> list[str]:
    """Production's web server, in one process unless asked for more (one process's own
    WebSockets need no Redis)."""
    return [
        sys.executable,
        "-m",
        "config.web_server",
        "--host",
        host,
        "--port",
        str(port),
        "--processes",
        str(processes),
    ]


@dataclass(frozen=True)
class WebServerProcess:
    """Production's web server started by ``web_server_process``: its address, and the
    process id of uvicorn's manager (whose children serve)."""

    url: str
    pid: int


@contextlib.contextmanager
def web_server_process(
    port: int, environment: Mapping[str, str], *, log_path: Path, cwd: Path, processes: int = 1
) -> Iterator[WebServerProcess]:
    """Production's web server in a process of its own with ``environment``, once it
    answers (LiveServerStartError with its log if it never does); stopped after."""
    url = f"http://127.0.0.1:{port}"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            web_server_command(port, processes=processes),
            cwd=cwd,
            env=dict(environment),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while True:
            try:
                # The API's documentation page: its URLs and views loaded, answered from a
                # template (not /api/schema/, generated afresh each time: 350 ms of CPU).
                with urllib.request.urlopen(f"{url}/api/docs/", timeout=5):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise LiveServerStartError(
                        f"the server did not start:\n{log_path.read_text()}"
                    ) from None
                time.sleep(0.05)
        yield WebServerProcess(url=url, pid=server.pid)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


class LiveServerStartError(RuntimeError):
    """uvicorn did not start serving in the test process."""


def live_server_channel_layers() -> None:
    """Give the live server's event loop a Redis channel layer of its own.

    A Redis channel layer receives in one event loop at a time ("Two event loops are trying
    to receive() on one channel layer at once!"). The live server's consumers receive in
    its thread's loop for as long as their sockets are open, and a test that received in
    its own loop meanwhile (a WebsocketCommunicator) failed. The server's own instance still
    meets the others in Redis, as the processes of a site do. Every other thread shares
    one instance as before, and so does the server while the layer is the in-memory one
    (no REDIS_URL, or a test's override), which is all its messages have."""
    from channels import layers

    if type(layers.channel_layers) is layers.ChannelLayerManager:
        shared = layers.channel_layers.backends
        layers.channel_layers.__class__ = LiveServerChannelLayers
        layers.channel_layers.backends = shared


class LiveServerChannelLayers(ChannelLayerManager):
    """Channels' layer manager, with the live server's loop's Redis layers its own
    (``live_server_channel_layers``)."""

    serving = threading.local()
    """``serving.loop`` is True in the thread whose event loop serves the live server."""

    def _own(self) -> bool:
        backend = str(self.configs.get("default", {}).get("BACKEND", ""))
        return bool(getattr(self.serving, "loop", False)) and "Redis" in backend

    @property  # the base class's attribute: which dictionary depends on the thread
    def backends(self) -> dict[str, Any]:
        name = "_server_backends" if self._own() else "_shared_backends"
        found: dict[str, Any] = self.__dict__.setdefault(name, {})
        return found

    @backends.setter
    def backends(self, value: dict[str, Any]) -> None:
        """Set by a reset (a changed CHANNEL_LAYERS setting): every layer is made anew."""
        self.__dict__["_shared_backends"] = value
        self.__dict__["_server_backends"] = {}


class UvicornLiveServer:
    """config.asgi under uvicorn, with production's options, in a thread of this process."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
        from django.db import connections
        from django.db.backends.sqlite3.base import DatabaseWrapper as SQLiteDatabase
        from django.test.utils import modify_settings

        import uvicorn

        from config.asgi import application
        from config.web_server import uvicorn_options

        for connection in connections.all(initialized_only=True):
            if isinstance(connection, SQLiteDatabase) and connection.is_in_memory_db():
                raise LiveServerStartError(
                    "an in-memory SQLite test database cannot be shared with the live "
                    "server's threads: give the database a file (DATABASE_URL=sqlite:///...)"
                )
        live_server_channel_layers()
        self.host = host
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, 0))
        self.port: int = self._socket.getsockname()[1]
        # Any ASGI application is served (Channels' live server test case wraps its router
        # so); django-stubs type the argument as Django's own handler.
        site = ASGIStaticFilesHandler(application)  # type: ignore[arg-type]
        options = uvicorn_options() | {"timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_SECONDS}
        config = uvicorn.Config(site, host=host, port=self.port, **options)
        self._server: uvicorn.Server = uvicorn.Server(config)
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._serve, name=f"uvicorn live server :{self.port}", daemon=True
        )
        # pytest-django's ``_live_server_helper`` turns this on for each test that uses
        # the server (its pages are asked for as 127.0.0.1 or localhost).
        self._live_server_modified_settings: modify_settings = modify_settings(
            ALLOWED_HOSTS={"append": [host, "localhost"]}
        )
        self._thread.start()
        self._wait_until_started()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def config(self) -> uvicorn.Config:
        """The server's configuration: the options it serves with."""
        return self._server.config

    def __str__(self) -> str:
        return self.url

    def _serve(self) -> None:
        LiveServerChannelLayers.serving.loop = True
        try:
            self._server.run(sockets=[self._socket])
        except BaseException as exc:  # reported by the thread that waits for the start
            self._error = exc

    def _wait_until_started(self) -> None:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while not self._server.started:
            if not self._thread.is_alive():
                raise LiveServerStartError(f"uvicorn stopped before serving: {self._error!r}")
            if time.monotonic() > deadline:
                self.stop()
                raise LiveServerStartError(f"uvicorn did not serve in {SERVER_START_SECONDS} s")
            time.sleep(0.01)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=SERVER_STOP_SECONDS)
        self._socket.close()
        if self._thread.is_alive():
            raise RuntimeError(f"uvicorn did not stop in {SERVER_STOP_SECONDS} s")
