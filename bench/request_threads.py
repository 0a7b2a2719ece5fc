"""What Django's ASGI handler costs a request around the application: Django's own
``ASGIHandler`` (the reference: asgiref's thread made for each request, the middleware
chain asynchronous, a hop to the thread for each synchronous hook) and the site's
(config/request_threads.py: kept threads, the chain synchronous and called in one hop),
side by side in one process.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.request_threads
    python -m bench.request_threads --rounds 20 --batch 100

Each handler answers the same GETs in process, one after another on one event loop, as a
uvicorn process serves a keep-alive client (no network, no server): ``/favicon.ico`` (the
middleware chain and nothing else) and ``/api/people/nobody/`` (one query, a 404). Printed
per path and handler: microseconds of wall time and of this process's CPU (all its
threads) a request, the medians of ``--rounds`` timed batches taken in turn, the ratio
kept/reference, and the threads each handler started. It makes a scratch database
(``<name>_request_threads_bench``, dropped at the end). It prints figures; it asserts
nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import asyncio
import logging
import statistics
import threading
import time
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.core.handlers.asgi import ASGIHandler  # noqa: E402

from bench.scratch_database import scratch_database  # noqa: E402
from config.request_threads import KeptThreadsASGIHandler  # noqa: E402
from tests.asgi_calls import asgi_get  # noqa: E402

PATHS = ("/favicon.ico", "/api/people/nobody/")


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


class ThreadStarts:
    """Threads started in this process while counting (``threading.Thread.start``)."""

    def __init__(self) -> None:
        self.count = 0
        self._start = threading.Thread.start

    def __enter__(self) -> ThreadStarts:
        original = self._start

        def counted(thread: threading.Thread) -> None:
            self.count += 1
            original(thread)

        threading.Thread.start = counted  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *_: object) -> None:
        threading.Thread.start = self._start  # type: ignore[method-assign]


async def batch(handler: Any, path: str, size: int) -> tuple[float, float]:
    """``size`` GETs of ``path`` one after another: seconds of wall time and of CPU."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(size):
        await asgi_get(handler, path)
    return time.perf_counter() - wall, time.process_time() - cpu


async def measure(rounds: int, size: int) -> None:
    handlers: dict[str, Any] = {"reference": ASGIHandler(), "kept": KeptThreadsASGIHandler()}
    for handler in handlers.values():  # warm: the URL conf, the caches, a connection
        for path in PATHS:
            await batch(handler, path, 20)
    say(
        f"{'path':24} {'handler':10} {'wall us':>8} {'cpu us':>8} {'x ref wall':>10}"
        f" {'x ref cpu':>9} {'threads a request':>18}"
    )
    for path in PATHS:
        figures: dict[str, tuple[list[float], list[float], int]] = {
            name: ([], [], 0) for name in handlers
        }
        for _ in range(rounds):
            for name, handler in handlers.items():  # in turn: the host's swings hit both
                walls, cpus, started = figures[name]
                with ThreadStarts() as starts:
                    wall, cpu = await batch(handler, path, size)
                walls.append(wall / size * 1e6)
                cpus.append(cpu / size * 1e6)
                figures[name] = (walls, cpus, started + starts.count)
        reference_wall = statistics.median(figures["reference"][0])
        reference_cpu = statistics.median(figures["reference"][1])
        for name, (walls, cpus, started) in figures.items():
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            say(
                f"{path:24} {name:10} {wall:8.0f} {cpu:8.0f} {wall / reference_wall:10.2f}"
                f" {cpu / reference_cpu:9.2f} {started / (rounds * size):18.2f}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    logging.getLogger("django.request").setLevel(logging.ERROR)  # not the 404s' warnings
    with scratch_database("request_threads_bench"):
        asyncio.run(measure(args.rounds, args.batch))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
