"""The Redis cache's connections: one pool per process, whichever cache object asks
(config/redis_cache.py). Under ASGI Django gives each request a cache object of its own
(``caches`` is an asgiref ``Local``); before issue 34 each made its own pool, so every
request opened a new connection to Redis. Real Redis."""

from __future__ import annotations

import asyncio

from django.core.cache import caches

import pytest
from asgiref.sync import sync_to_async

pytestmark = [pytest.mark.redis]


def test_requests_under_asgi_share_one_connection_pool() -> None:
    async def one_request(n: int) -> tuple[int, object]:
        """What a request's code sees: its own cache object, a cache call in a thread."""
        cache = caches["default"]
        await sync_to_async(cache.set, thread_sensitive=False)(f"test:pool:{n}", n, 30)
        assert await sync_to_async(cache.get, thread_sensitive=False)(f"test:pool:{n}") == n
        return id(cache), cache._cache.get_client()  # type: ignore[attr-defined]

    async def requests() -> list[tuple[int, object]]:
        return [await asyncio.create_task(one_request(n)) for n in range(20)]

    # The pool is the process's: earlier tests of this process may have opened some of its
    # connections already; these requests may add at most two, not one each.
    # (A cache object of its own: ``caches["default"]`` here would be the one the requests'
    # contexts inherit.)
    shared = caches.create_connection("default")._cache.get_client()  # type: ignore[attr-defined]
    before = shared.connection_pool._created_connections
    seen = asyncio.run(requests())
    assert len({cache for cache, _ in seen}) > 1  # Django's objects: one per request
    clients = {id(client) for _, client in seen}
    assert clients == {id(shared)}  # one client, one pool for them all, the process's
    pool = seen[0][1].connection_pool  # type: ignore[attr-defined]
    assert pool._created_connections - before <= 2  # not one a request
