"""The site's ASGI handler lends each request a kept thread (config/request_threads.py):
requests one after another run their synchronous code in the same thread, requests at
the same time in threads of their own, each request's database connection is still
handed back when it ends, and a request goes to its thread and back not once
for each middleware's hook, but once, with the answer's close (before it is sent when it
is held in memory, after for a streamed one)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

from django.core import signals
from django.core.handlers.asgi import ASGIHandler
from django.db import connection
from django.db.backends.signals import connection_created
from django.test import override_settings

import pytest
from asgiref.sync import AsyncToSync, SyncToAsync

from config.asgi import django_asgi_application
from config.request_threads import KeptThreadsASGIHandler, RequestThreads
from tests.asgi_calls import AsgiClient, asgi_get, http_scope
from tests.config import urls_held_view

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def request_threads() -> Iterator[list[int]]:
    """The thread each request's ``request_started`` receivers ran in, in order."""
    seen: list[int] = []

    def started(**_: Any) -> None:
        seen.append(threading.get_ident())

    signals.request_started.connect(started, dispatch_uid="test_request_threads")
    yield seen
    signals.request_started.disconnect(dispatch_uid="test_request_threads")


@pytest.fixture
def finished() -> Iterator[list[str]]:
    """A mark for each ``request_finished`` sent."""
    marks: list[str] = []

    def ended(**_: Any) -> None:
        marks.append("finished")

    signals.request_finished.connect(ended, dispatch_uid="test_request_finished")
    yield marks
    signals.request_finished.disconnect(dispatch_uid="test_request_finished")


def test_the_site_serves_http_with_kept_threads() -> None:
    assert isinstance(django_asgi_application, KeptThreadsASGIHandler)


def test_requests_one_after_another_run_in_one_kept_thread(request_threads: list[int]) -> None:
    handler = KeptThreadsASGIHandler(RequestThreads())

    async def five() -> list[int]:
        return [await asgi_get(handler, "/api/people/nobody/") for _ in range(5)]

    assert asyncio.run(five()) == [404] * 5
    assert len(request_threads) == 5
    assert len(set(request_threads)) == 1
    assert threading.get_ident() not in request_threads
    assert handler.threads.made == 1
    assert handler.threads.idle() == 1


def test_a_request_hops_to_its_thread_once(
    monkeypatch: pytest.MonkeyPatch, finished: list[str]
) -> None:
    """``request_started``, the whole middleware chain and the view, the answer's close
    (``request_finished``, once) in one hop: Django's own ASGI handler hops for
    ``request_started``, each async-capable middleware's hooks, each view hook, the view
    and its render, and the close (fifteen times for this answer)."""
    hops: list[str] = []
    to_thread, to_loop = SyncToAsync.__call__, AsyncToSync.__call__

    def counted_to_thread(self: SyncToAsync[Any, Any], *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(self.func, "__qualname__", repr(self.func)))
        return to_thread(self, *args, **kwargs)

    def counted_to_loop(self: AsyncToSync[Any, Any], *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(self.awaitable, "__qualname__", repr(self.awaitable)))
        return to_loop(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counted_to_thread)
    monkeypatch.setattr(AsyncToSync, "__call__", counted_to_loop)
    for handler in (KeptThreadsASGIHandler(RequestThreads()), ASGIHandler()):
        hops.clear()
        finished.clear()
        assert asyncio.run(asgi_get(handler, "/api/people/nobody/")) == 404
        assert finished == ["finished"]
        if isinstance(handler, KeptThreadsASGIHandler):
            assert len(hops) == 1, hops
        else:  # the reference: what the kept handler saves
            assert len(hops) > 6, hops


def test_requests_at_the_same_time_run_in_threads_of_their_own(request_threads: list[int]) -> None:
    handler = KeptThreadsASGIHandler(RequestThreads())
    both_in = threading.Barrier(2, timeout=10)

    def wait_for_the_other(**_: Any) -> None:
        both_in.wait()  # broken (and the test failed) unless both requests run at once

    signals.request_started.connect(wait_for_the_other, dispatch_uid="test_both_in")
    try:

        async def two() -> list[int]:
            return list(
                await asyncio.gather(
                    asgi_get(handler, "/favicon.ico"), asgi_get(handler, "/favicon.ico")
                )
            )

        statuses = asyncio.run(two())
    finally:
        signals.request_started.disconnect(dispatch_uid="test_both_in")
    assert len(statuses) == 2
    assert len(set(request_threads)) == 2
    assert handler.threads.made == 2
    assert handler.threads.idle() == 2

    async def one_more() -> int:
        return await asgi_get(handler, "/favicon.ico")

    asyncio.run(one_more())
    assert request_threads[-1] in request_threads[:2]  # a kept one, no third thread
    assert handler.threads.made == 2


def test_a_kept_thread_hands_its_database_connection_back_after_each_request() -> None:
    handler = KeptThreadsASGIHandler(RequestThreads())
    connected_in: list[int] = []

    def connected(**_: Any) -> None:
        connected_in.append(threading.get_ident())

    async def read() -> int:
        return await asgi_get(handler, "/api/people/nobody/")  # looks the person up: a query

    connection_created.connect(connected, dispatch_uid="test_connected")
    try:
        assert asyncio.run(read()) == 404
        assert asyncio.run(read()) == 404
    finally:
        connection_created.disconnect(dispatch_uid="test_connected")
    (executor,) = handler.threads._idle
    kept_thread = executor.submit(threading.get_ident).result(timeout=10)
    # each request connected in the kept thread (a connection closed at the end of the
    # first, or handed back to the pool, is taken again by the second) ...
    assert connected_in == [kept_thread, kept_thread]
    open_after = executor.submit(lambda: connection.connection is not None).result(timeout=10)
    assert not open_after  # ... and the end of each closed it or gave it back


@override_settings(ROOT_URLCONF="tests.config.urls_held_view")
def test_a_request_whose_client_left_mid_page_gives_its_thread_back_once_its_code_ends(
    finished: list[str],
) -> None:
    """The client leaves while its page is computed: the answer is cancelled, the request
    ends once the code running in the thread has (``request_finished`` sent once), and the
    thread is lent again."""
    handler = KeptThreadsASGIHandler(RequestThreads())
    urls_held_view.entered.clear()
    urls_held_view.released.clear()

    async def leaving() -> None:
        client = AsgiClient()
        request = asyncio.create_task(handler(http_scope("/held/"), client.receive, client.send))
        while not urls_held_view.entered.is_set():
            await asyncio.sleep(0.01)
        client.leave.set()  # the client leaves while the page is computed
        await asyncio.sleep(0.2)
        assert not request.done()  # its code still runs in the thread
        assert handler.threads.idle() == 0
        urls_held_view.released.set()
        await asyncio.wait_for(request, timeout=10)
        assert handler.threads.idle() == 1
        assert finished == ["finished"]  # once, though the answer was cancelled
        assert await asyncio.wait_for(asgi_get(handler, "/quick/"), timeout=10) == 200
        assert finished == ["finished", "finished"]

    try:
        asyncio.run(leaving())
    finally:
        urls_held_view.released.set()
    assert handler.threads.made == 1


@override_settings(ROOT_URLCONF="tests.config.urls_held_view")
def test_an_answer_in_memory_is_closed_before_it_is_sent_a_streamed_one_after(
    finished: list[str],
) -> None:
    """An answer held in memory is closed before it is sent (nothing sent depends on its
    resources); a streamed one only once its parts are sent."""
    handler = KeptThreadsASGIHandler(RequestThreads())
    events: list[str] = []

    def sent(message: dict[str, Any]) -> None:
        if message.get("body"):
            events.append(message["body"].decode())
        events.extend(finished)
        finished.clear()

    async def answered(path: str) -> list[str]:
        events.clear()
        client = AsgiClient(on_send=sent)
        await handler(http_scope(path), client.receive, client.send)
        events.extend(finished)
        return list(events)

    assert asyncio.run(answered("/quick/")) == ["finished", "quick"]
    assert asyncio.run(answered("/streamed/")) == ["first ", "second", "finished"]


def test_a_thread_still_running_a_call_is_lent_to_nobody_else() -> None:
    """Should a request end while its code still runs (an error on the loop's side), its
    thread is not kept: the next request would wait behind a stranger's page."""
    threads = RequestThreads()
    busy = threads.borrow()
    release = threading.Event()
    busy.submit(release.wait, 10)
    try:
        threads.give_back(busy)
        assert threads.idle() == 0
        other = threads.borrow()
        assert other is not busy
        assert other.submit(lambda: "now").result(timeout=10) == "now"
    finally:
        release.set()


def test_threads_beyond_the_idle_ones_kept_are_stopped() -> None:
    threads = RequestThreads(idle_kept=1)
    first, second = threads.borrow(), threads.borrow()
    for executor in (first, second):
        executor.submit(lambda: None).result(timeout=10)
    threads.give_back(first)
    threads.give_back(second)
    assert threads.idle() == 1
    assert threads.borrow() is first
    with pytest.raises(RuntimeError):
        second.submit(lambda: None)  # shut down
