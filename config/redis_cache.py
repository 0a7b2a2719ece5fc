"""Django's Redis cache with one client object and connection pool per server, kept for
the whole process.

Django's ``RedisCacheClient.get_client`` makes a new ``redis.Redis`` around the pool at
every cache call; building one costs about 0.2 ms of CPU (its options, its response
callbacks), which was a third of a read cache hit's time in the web process
(api/read_cache.py; docs/benchmarks.md, *Web reads under load*). A ``redis.Redis`` is
safe to share between threads (each command takes a connection from the pool), and the
pool reconnects after a fork, so one per pool serves the whole process.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

_PROCESS_CLIENTS: dict[tuple[str, str], Any] = {}
"""The process's clients, by server and pool options: one connection pool each, whichever
cache object asks. Django keeps a cache object per thread and, under ASGI, per request
(``caches`` is an asgiref ``Local``), and each object made a pool of its own: every
request opened a new connection to Redis (its TCP handshake, DNS lookup and health check
were a quarter of a web process's CPU under the read benchmark, issue 34)."""
_PROCESS_CLIENTS_LOCK = threading.Lock()


class KeptClientRedisCacheClient(RedisCacheClient):
    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]  # not in the stubs
        server: str = self._servers[index]  # type: ignore[attr-defined]
        options: dict[str, Any] = self._pool_options  # type: ignore[attr-defined]
        name = (server, repr(sorted(options.items())))
        client = _PROCESS_CLIENTS.get(name)
        if client is None:
            with _PROCESS_CLIENTS_LOCK:
                client = _PROCESS_CLIENTS.get(name)
                if client is None:
                    client = _PROCESS_CLIENTS[name] = super().get_client(key, write=write)
        return client


class KeptClientRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` with its clients kept."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = KeptClientRedisCacheClient
