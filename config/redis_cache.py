"""Django's Redis cache with one client object per connection pool, kept.

Django's ``RedisCacheClient.get_client`` makes a new ``redis.Redis`` around the pool at
every cache call; building one costs about 0.2 ms of CPU (its options, its response
callbacks), which was a third of a read cache hit's time in the web process
(api/read_cache.py; docs/benchmarks.md, *Web reads under load*). A ``redis.Redis`` is
safe to share between threads (each command takes a connection from the pool), and the
pool reconnects after a fork, so one per pool serves the whole process.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class KeptClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._kept: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]  # not in the stubs
        client = self._kept.get(index)
        if client is None:
            client = self._kept[index] = super().get_client(key, write=write)
        return client


class KeptClientRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` with its clients kept."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = KeptClientRedisCacheClient
