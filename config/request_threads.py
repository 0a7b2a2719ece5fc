"""Django's ASGI handler with its requests' threads kept, lent to one request at a time,
and each request's synchronous steps run in that thread in one go.

Django runs a request's synchronous code (the request signals' receivers, the middleware
hooks and the view) in a thread of asgiref's thread-sensitive executor, one for each
request (``ThreadSensitiveContext``). asgiref makes that executor anew for every request
and, when the request ends, starts another thread to join the first: two threads started
and joined per request. Under the read benchmark that was 7 % of the web processes'
samples (docs/benchmarks.md, "2026-11-29 (issue 34)"), the same for anonymous and
signed-in readers.

Here each request borrows an executor of one thread from the process's idle ones (a new one
only when every kept one is lent) and gives it back when it ends: asgiref's
``ThreadSensitiveContext(executor=...)``, whose caller owns the executor. A thread serves
one request at a time, as before; what a request leaves in it is what a WSGI server's
reused thread would carry (Django's database connection objects, closed or handed back to
the pool by ``close_old_connections`` at the end of every request, as under WSGI);
everything Django keeps per request lives in context variables, copied into the thread for
each call. The chain is built synchronously and called, with the request's other
synchronous steps, in one hop to the thread (``KeptThreadsASGIHandler``). In process
(bench/request_threads.py), a request of the middleware alone costs 0.24 times the CPU of
Django's handler.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import FileResponse, HttpResponseBase
from django.urls import set_script_prefix

from asgiref.sync import ThreadSensitiveContext, sync_to_async

T = TypeVar("T")

IDLE_KEPT = 16
"""Idle threads a process keeps for the next requests; one beyond that is stopped when its
request ends (a burst's extra threads do not stay). uvicorn's processes serve a few
requests at a time each (config/web_server.py)."""


class RequestExecutor(ThreadPoolExecutor):
    """An executor of one thread that knows whether everything given to it has finished.

    A request whose client leaves is cancelled on the event loop while its synchronous code
    runs on in the thread; the handler's last step for it (``request_finished``) waits
    behind that code in the same thread. Should a request end sooner (an error on the
    loop's side), the executor is not idle, and the next request lent it would wait behind
    a stranger's page. Two counts, each written by one thread only (calls submitted, by
    the loop's; calls finished, by the executor's), tell."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="request")
        self.submitted = 0
        self.finished = 0

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        self.submitted += 1
        return super().submit(self._counted, fn, *args, **kwargs)

    def _counted(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, **kwargs)
        finally:
            self.finished += 1

    def idle(self) -> bool:
        return self.finished == self.submitted


class RequestThreads:
    """The process's idle request threads, each an executor of one thread. Borrowed and
    given back on the event loop's thread (``list.pop`` and ``append`` are atomic), the most
    recently used first: its thread is the one most likely still in the CPU's caches."""

    def __init__(self, idle_kept: int = IDLE_KEPT) -> None:
        self.idle_kept = idle_kept
        self._idle: list[RequestExecutor] = []
        self.made = 0
        """Executors made so far (a test's and the benchmark's count)."""

    def borrow(self) -> RequestExecutor:
        try:
            return self._idle.pop()
        except IndexError:
            self.made += 1
            return RequestExecutor()

    def give_back(self, executor: RequestExecutor) -> None:
        """Keep ``executor`` for the next request if it is idle and fewer than
        ``idle_kept`` are; else stop it: its thread ends after its last call (code still
        running in it ends first), and nothing waits for that."""
        if executor.idle() and len(self._idle) < self.idle_kept:
            self._idle.append(executor)
        else:
            executor.shutdown(wait=False)

    def idle(self) -> int:
        return len(self._idle)


class KeptThreadsASGIHandler(ASGIHandler):
    """``django.core.handlers.asgi.ASGIHandler`` whose requests borrow kept threads, and
    whose middleware chain runs in its request's thread in one go.

    Django's ASGI handler builds an asynchronous chain: every async-capable middleware
    below the last sync-only one (today the person's display) calls its hooks through
    ``sync_to_async`` one by one, the sync-only one goes back to the event loop with
    ``async_to_sync``, and each view hook, the view and the template's render hop to the
    thread again: fifteen hops between the loop and the request's thread for a 404 of the
    API, each a wake-up of both. The chain is all synchronous code (the one async view,
    ``/healthz``, runs through ``async_to_sync`` as under WSGI), so it is built
    synchronously, as for WSGI, and called in the request's thread once, with the
    ``request_started`` signal before it and, for an answer held in memory, its close
    after it (``handle``): one hop a request."""

    def __init__(self, threads: RequestThreads | None = None) -> None:
        BaseHandler.__init__(self)  # not ASGIHandler's: it builds the asynchronous chain
        self.load_middleware(is_async=False)
        self.threads = threads if threads is not None else RequestThreads()

    def _answer(
        self, scope: dict[str, Any], body_file: Any, answered: list[HttpResponseBase]
    ) -> HttpResponseBase:
        """In the request's thread, what Django's ``handle`` does in separate hops: the
        ``request_started`` signal, the request made, the chain; and an answer held in
        memory is closed here (its resources, ``request_finished``) before it is sent, as
        nothing it sends depends on them. A streamed answer is closed after it is sent.
        The answer goes into ``answered`` too: a request cancelled meanwhile (its end
        waits for this in the same thread) must not send ``request_finished`` again."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, refusal = self.create_request(scope, body_file)
        if request is None:
            assert refusal is not None
            response: HttpResponseBase = refusal
        else:
            response = self.get_response(request)
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size  # the ASGI server chunks
        response._handler_class = self.__class__  # type: ignore[attr-defined]  # as Django does
        answered.append(response)
        if not response.streaming:
            response.close()
        return response

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Django's ``ASGIHandler.handle`` with the request's synchronous steps in one hop
        (``_answer``): the body read, then the answer computed and sent while the client's
        leaving is listened for; a client that leaves cancels the answer, as in Django."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        answered: list[HttpResponseBase] = []

        async def answer() -> HttpResponseBase:
            response = await sync_to_async(self._answer, thread_sensitive=True)(
                scope, body_file, answered
            )
            with contextlib.suppress(asyncio.CancelledError):  # the client left while sent
                await self.send_response(response, send)
            return response

        listening = asyncio.create_task(self.listen_for_disconnect(receive))
        answering = asyncio.create_task(answer())
        await asyncio.wait([listening, answering], return_when=asyncio.FIRST_COMPLETED)
        for task in (listening, answering):  # the listener first: it raises nothing else
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                continue
            try:
                task.result()
            except RequestAborted:
                pass
            except AssertionError:
                body_file.close()
                raise
        try:
            response = answering.result()
        except asyncio.CancelledError:  # the client left before the answer was computed
            # asgiref gave up waiting, but the answer's code runs on in the thread: this
            # waits behind it there, and sends request_finished unless its close did
            def finish_unless_closed() -> None:
                if not (answered and answered[0].closed):
                    signals.request_finished.send(sender=self.__class__)

            await sync_to_async(finish_unless_closed, thread_sensitive=True)()
        else:
            if not response.closed:
                await sync_to_async(response.close)()
        body_file.close()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self.threads.borrow()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self.threads.give_back(executor)
