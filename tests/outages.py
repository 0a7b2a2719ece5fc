"""Outages without touching the shared servers: a TCP proxy on 127.0.0.1 that can be cut.

A process under test is pointed at the proxy's port instead of the server's (its
DATABASE_URL or REDIS_URL); ``cut()`` then closes every connection through the proxy and
stops listening, so new connections are refused, exactly what a client sees when the
server is down; ``restore()`` listens on the same port again. The server itself, which
other engineers use, never notices.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

BUFFER_BYTES = 64 * 1024


class OutageProxy:
    """Forwards 127.0.0.1:``port`` to ``target``; ``cut()`` and ``restore()`` the link."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._acceptor: threading.Thread | None = None
        self.connections = 0
        """How many connections were accepted so far (not counting refused ones)."""
        self.port = self._listen(0)

    # ------------------------------------------------------------ control

    @property
    def is_cut(self) -> bool:
        return self._listener is None

    def cut(self) -> None:
        """Close every connection and stop listening: new connections are refused."""
        with self._lock:
            listener, self._listener = self._listener, None
            open_sockets, self._sockets = self._sockets, set()
        if listener is not None:
            _close(listener)
        for sock in open_sockets:
            _close(sock)
        if self._acceptor is not None:
            self._acceptor.join(timeout=5)
            self._acceptor = None

    def restore(self) -> None:
        """Listen on the same port again."""
        if self._listener is None:
            self._listen(self.port)

    def close(self) -> None:
        self.cut()

    def url_for(self, url: str) -> str:
        """``url`` (postgres://..., redis://...) with its host and port replaced by the
        proxy's."""
        parts = urlsplit(url)
        credentials = parts.netloc.rpartition("@")[0]
        netloc = f"{credentials}@127.0.0.1:{self.port}" if credentials else f"127.0.0.1:{self.port}"
        return urlunsplit(parts._replace(netloc=netloc))

    # ------------------------------------------------------------ plumbing

    def _listen(self, port: int) -> int:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(64)
        bound: int = listener.getsockname()[1]
        with self._lock:
            self._listener = listener
        self._acceptor = threading.Thread(
            target=self._accept, args=(listener,), name=f"proxy-{bound}", daemon=True
        )
        self._acceptor.start()
        return bound

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _address = listener.accept()
            except OSError:
                return  # the listener was closed: cut
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                _close(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                if self._listener is not listener:  # cut meanwhile
                    _close(client)
                    _close(upstream)
                    return
                self._sockets.update((client, upstream))
                self.connections += 1
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(BUFFER_BYTES)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._sockets.discard(source)
                self._sockets.discard(sink)
            _close(source)
            _close(sink)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()


@contextlib.contextmanager
def outage_proxy(url: str, default_port: int) -> Iterator[OutageProxy]:
    """A proxy in front of the server of ``url`` (closed afterwards)."""
    parts = urlsplit(url)
    proxy = OutageProxy(parts.hostname or "127.0.0.1", parts.port or default_port)
    try:
        yield proxy
    finally:
        proxy.close()
