"""What a read-cache hit costs in the web process, signed in and anonymous, side by side
(issue 34): the same pages as bench/web_reads.py's mixed reads, each asked many times
through Django's test client (the middleware chain, no network, no other process), by a
visitor and by a signed-in person, both without a CSRF cookie as the load clients send
none.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.signed_in_hits
    python -m bench.signed_in_hits --rounds 200 --profile

Printed per page: microseconds per hit (the median of ``--rounds`` timed batches), SQL
statements and Redis round trips per hit, the ratio signed in/anonymous, and what a
signed-in hit costs when the person's kept regions are old and rendered again (``regions
us``: each GET after the person's own-writes version moved on, one Redis SET included;
the header rendered again with the page's own), and when only the page's kept regions
are old (``page moved us``: each GET after the person's entries of every page were
dropped, two Redis round trips included; the path of a hit after the page's reads
generation moved on more than READ_CACHE_LAG_SECONDS ago, which the ladder's writes do
every few seconds: the header is kept once per reader, api.kept_parts.base_key); with
``--profile``, the functions where a signed-in hit spends its time (cProfile), beside the
anonymous hit's, and a hit whose page moved. It makes a scratch database
(``<name>_signed_in_hits_bench``, dropped at the end). It prints figures; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import cProfile
import io
import pstats
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402

import redis.connection  # noqa: E402

from api.read_cache import HIT_HEADER  # noqa: E402
from bench.scratch_database import scratch_database  # noqa: E402


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


@contextmanager
def counted() -> Iterator[dict[str, int]]:
    """SQL statements run and Redis requests sent (each a round trip: a pipeline's
    commands go in one send) in the block."""
    counts = {"sql": 0, "redis": 0}
    send = redis.connection.AbstractConnection.send_packed_command

    def counting_send(self: Any, command: Any, check_health: bool = True) -> None:
        counts["redis"] += 1
        send(self, command, check_health)  # type: ignore[no-untyped-call]

    def record(execute: Any, statement: str, *args: Any) -> Any:
        counts["sql"] += 1
        return execute(statement, *args)

    redis.connection.AbstractConnection.send_packed_command = counting_send  # type: ignore[method-assign]
    try:
        with connection.execute_wrapper(record):
            yield counts
    finally:
        redis.connection.AbstractConnection.send_packed_command = send  # type: ignore[method-assign]


def asker(session: str) -> Callable[[str], Any]:
    """A GET as the load clients make it: no cookie but the session's (none: a visitor)."""
    client = Client(HTTP_ACCEPT_LANGUAGE="en")

    def get(path: str) -> Any:
        client.cookies.clear()
        if session:
            client.cookies[settings.SESSION_COOKIE_NAME] = session
        return client.get(path)

    return get


def pages() -> list[str]:
    from bench.web_reads import ladder_opened, league_played, reads_of

    tournament_id = league_played()
    ladder = ladder_opened()
    return [path for path in reads_of(tournament_id, ladder) if not path.startswith("/api/")]


def session_of(username: str) -> tuple[str, int]:
    """A session of ``username`` (made if need be), and the person's id."""
    from django.contrib.auth.models import User

    person, _ = User.objects.get_or_create(username=username)
    browser = Client()
    browser.force_login(person)
    return str(browser.cookies[settings.SESSION_COOKIE_NAME].value), int(person.pk)


def regions_old(get: Callable[[str], Any], user_id: int) -> Callable[[str], Any]:
    """``get``, each time after the person's kept regions were made old."""
    from api.kept_parts import own_writes_moved_on

    def get_rendered(path: str) -> Any:
        own_writes_moved_on(user_id)
        return get(path)

    return get_rendered


def page_moved(get: Callable[[str], Any], user_id: int) -> Callable[[str], Any]:
    """``get``, each time after the person's kept regions of every page (not their header:
    api.kept_parts.base_key) were dropped, as when the page's reads generation has moved on
    more than READ_CACHE_LAG_SECONDS ago (two Redis round trips included)."""
    from django.core.cache import cache

    store = cache._cache.get_client()  # type: ignore[attr-defined]
    pattern = cache.make_key(f"person:parts:{user_id}:") + "*"

    def get_page_rendered(path: str) -> Any:
        names = store.keys(pattern)
        if names:
            store.delete(*names)
        return get(path)

    return get_page_rendered


def per_hit(get: Callable[[str], Any], path: str, rounds: int, batch: int) -> float:
    """Microseconds per GET of ``path``: the median of ``rounds`` batches."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(batch):
            get(path)
        times.append((time.perf_counter() - started) / batch)
    return statistics.median(times) * 1e6


def profiled(get: Callable[[str], Any], paths: list[str], repeat: int) -> str:
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(repeat):
        for path in paths:
            get(path)
    profile.disable()
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out).strip_dirs().sort_stats("cumulative")
    stats.print_stats(45)
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with scratch_database("signed_in_hits_bench"):
        from django.core.cache import cache

        cache.clear()
        paths = pages()
        session, user_id = session_of("reader")
        visitor, person = asker(""), asker(session)
        rendered = regions_old(person, user_id)
        moved = page_moved(person, user_id)
        for path in paths:  # stored, the account kept, the counts kept
            for get in (visitor, person, person, person):
                get(path)
        say(
            f"{'page':44} {'anon us':>8} {'in us':>8} {'ratio':>6}  sql a/i  redis a/i  hit a/i"
            f"  {'regions us':>10}  {'page moved us':>13}"
        )
        totals = {"a": 0.0, "i": 0.0, "r": 0.0, "m": 0.0}
        for path in paths:
            figures = {}
            for name, get in (("a", visitor), ("i", person)):
                with counted() as counts:
                    answer = get(path)
                figures[name] = (
                    per_hit(get, path, args.rounds, args.batch),
                    counts,
                    answer.get(HIT_HEADER, "-"),
                )
                totals[name] += figures[name][0]
            regions = per_hit(rendered, path, args.rounds, args.batch)
            totals["r"] += regions
            for other in paths:  # the header kept again
                person(other)
            page = per_hit(moved, path, args.rounds, args.batch)
            totals["m"] += page
            for other in paths:  # kept again: the next page's first hit is a hit
                person(other)
            (a, ca, ha), (i, ci, hi) = figures["a"], figures["i"]
            say(
                f"{path:44} {a:8.0f} {i:8.0f} {i / a:6.2f}  {ca['sql']:>3}/{ci['sql']:<3}"
                f" {ca['redis']:>4}/{ci['redis']:<4}  {ha}/{hi}  {regions:10.0f}  {page:13.0f}"
            )
        say(
            f"{'all pages (sum)':44} {totals['a']:8.0f} {totals['i']:8.0f}"
            f" {totals['i'] / totals['a']:6.2f}{'':31}{totals['r']:10.0f}  {totals['m']:13.0f}"
        )
        say(f"load average: {Path('/proc/loadavg').read_text().split()[:3]}")
        if args.profile:
            profiles = (
                ("anonymous", visitor),
                ("signed in", person),
                ("signed in, page moved", moved),
            )
            for name, get in profiles:
                say(f"\n---- {name}: cProfile, every page x{args.rounds}")
                say(profiled(get, paths, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
