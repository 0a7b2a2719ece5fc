"""A Redis that accepts connections and never answers does not hold a request: the cache
and the channel layer built from REDIS_URL give up with a timeout error (their callers
degrade: rate limits are skipped, a live update is dropped) instead of waiting forever."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

from django.core.cache.backends.redis import RedisCache

import pytest
import redis
from channels_redis.core import RedisChannelLayer  # type: ignore[import-untyped]

from config.configuration import cache_from_env, messaging_from_env

BOUND_SECONDS = 120  # only a bound on a hang, far above the configured timeouts


@pytest.fixture
def silent_redis() -> Iterator[str]:
    """A URL whose server takes connections into its backlog and never says a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept_and_stay_silent() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept_and_stay_silent, daemon=True)
    thread.start()
    yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    stop.set()
    thread.join()
    for connection in accepted:
        connection.close()
    listener.close()


def in_a_thread(call: object) -> BaseException | None:
    """Run ``call()`` in a thread; the exception it ended with (None: it returned)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()  # type: ignore[operator]
        except BaseException as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(BOUND_SECONDS)
    assert outcome, f"still waiting after {BOUND_SECONDS} s: no timeout is configured"
    return outcome[0]


def test_the_cache_gives_up_on_a_silent_redis(silent_redis: str, tmp_path: Path) -> None:
    settings = cache_from_env({"REDIS_URL": silent_redis}, var_dir=tmp_path)
    cache = RedisCache(settings["LOCATION"], {k: v for k, v in settings.items() if k != "LOCATION"})

    error = in_a_thread(lambda: cache.get("anything"))

    assert isinstance(error, redis.exceptions.TimeoutError), error


def test_the_channel_layer_gives_up_on_a_silent_redis(silent_redis: str, tmp_path: Path) -> None:
    settings = messaging_from_env(
        {"REDIS_URL": silent_redis}, var_dir=tmp_path, visibility_timeout=60
    ).channel_layer
    layer = RedisChannelLayer(**settings["CONFIG"])

    error = in_a_thread(lambda: asyncio.run(layer.group_send("table-1", {"type": "x"})))

    assert isinstance(error, redis.exceptions.TimeoutError), error
