"""Web reads under load: 20 clients reading standings, match lists, records, replay pages
and ladder pages at once, optionally while a ladder plays on a real worker.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.web_reads
    python -m bench.web_reads --seconds 20 --clients 20 --processes 2 --no-ladder

It makes a scratch database of its own (``<name>_web_reads_bench``, dropped at the end):
a league of eight finished Kingen matches (played in this process) and a Kingen ladder of
built-in bots. With ``--ladder`` (the default) a Celery worker plays the ladder's matches
throughout, as the matchmaker queues them (a worker's own pass after each match).

Two servers are measured in the same run, one after the other, each under the same load:

- **(a) reference**: the server as it was: one daphne process, the read caches off
  (``READ_CACHE=off``);
- **(b) production**: ``python -m config.web_server`` (uvicorn, ``--processes`` worker
  processes) with the read caches on.

With ``--pools 0,20`` (b) is measured once for each ``DATABASE_POOL_SIZE`` of its web
processes (0: a connection a request), one after the other in the same run.

For each: a trivial page (``/favicon.ico``: the middleware and nothing else), the mixed
reads anonymous, and the mixed reads again signed in (each client a person of its own, its
session cookie sent on the pages; the API reads go without it, as a script's would), every
client on its own keep-alive connection, for ``--seconds`` each
(the clients are threads of ``--client-processes`` processes, 4 by default: in one process
they would wait for each other's GIL and count it as the server's time);
printed: requests/s, p50/p95/max, errors, the PostgreSQL sessions opened per 1,000 mixed
reads, the ratios (b)/(a) and signed in/anonymous, and /proc/loadavg (other
people share this CPU: compare ratios, not absolute figures). Traffic goes to 127.0.0.1
only. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import http.client
import multiprocessing
import random
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402

import league.tasks  # noqa: E402, F401 (registers the tasks this process sends)
from api.read_cache import HIT_HEADER  # noqa: E402
from bench.league import matches_queue  # noqa: E402
from bench.scratch_database import scratch_database  # noqa: E402
from bots.models import BotFamily  # noqa: E402
from config.configuration import database_url_for  # noqa: E402
from config.web_server import processes_from  # noqa: E402
from league.models import Ladder, LadderEntrant, Match, MatchStatus  # noqa: E402
from league.reads_generation import GENERATION_KEY, PROGRESS_KEY, reads_generation  # noqa: E402
from tests.celery_workers import WorkerError, process_stop, worker_start  # noqa: E402
from tests.servers import closed_port  # noqa: E402

REPOSITORY_ROOT = Path(__file__).resolve().parent.parent
LEAGUE_MATCHES = 8
LADDER_ANCHORS = ("greedy", "random", "strong")
TARGET_RPS = 300
TARGET_P95_MS = 150.0


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()
    except OSError:
        return "unknown"


# ---------------------------------------------------------------- data


def league_played() -> int:
    """A league round of finished Kingen matches (played here, no worker); its tournament."""
    from league.services.matches import match_run

    ids = matches_queue(LEAGUE_MATCHES, send=False)
    for match_id in ids:
        match_run(match_id=match_id, worker="bench")
    return Match.objects.get(pk=ids[0]).tournament_id


def ladder_opened() -> Ladder:
    from league.services.ladders import ladder_anchor_add, ladder_open

    ladder = ladder_open(game="kingen", slug="kingen-bench", anchors=LADDER_ANCHORS[:2])
    for name in LADDER_ANCHORS[2:]:
        ladder_anchor_add(ladder=ladder, name=name)
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    ladder_anchor_add(ladder=ladder, name="random", bot_name="random-2")
    # The matchmaker seats tables for the ladder's players, not its anchors alone: the two
    # copies play as players (built-in bots: no sandbox needed for the load).
    players = LadderEntrant.objects.filter(ladder=ladder, bot__name__in=("greedy-2", "random-2"))
    players.update(anchor=False)
    # A player's bot plays the ladder's family (the matchmaker seats no other).
    BotFamily.objects.bulk_create(
        [
            BotFamily(bot_id=bot_id, family="kingen")
            for bot_id in players.values_list("bot_id", flat=True)
        ],
        ignore_conflicts=True,
    )
    return ladder


def ladder_kick() -> None:
    from league.services.ladders import ladders_matchmake

    ladders_matchmake()


def reads_of(tournament_id: int, ladder: Ladder) -> list[str]:
    """The mixed reads: standings, a round, match lists, records, replay pages and ladder
    pages."""
    finished = list(
        Match.objects.filter(status=MatchStatus.FINISHED)
        .order_by("-id")
        .values_list("id", flat=True)[:12]
    )
    versions = list(
        LadderEntrant.objects.filter(ladder=ladder).values_list("competitor_id", flat=True)[:3]
    )
    reads = [
        f"/leagues/{tournament_id}/",
        f"/leagues/{tournament_id}/rounds/1/",
        f"/ladders/{ladder.slug}/",
        f"/ladders/{ladder.slug}/",
        "/ladders/",
        "/ratings/",
        f"/api/ladders/{ladder.slug}/",
        f"/api/tournaments/{tournament_id}/standings/",
        f"/api/matches/?tournament={tournament_id}",
        f"/api/matches/?tournament={ladder.tournament_id}&status=finished",
    ]
    reads += [f"/ladders/{ladder.slug}/versions/{c}/" for c in versions]
    reads += [f"/api/matches/{m}/record/" for m in finished]
    reads += [f"/matches/{m}/" for m in finished[:6]]
    return reads


# ---------------------------------------------------------------- processes


def environment_for(folder: Path, *, cache: bool, pool: int | None = None) -> dict[str, str]:
    """A server's environment; ``pool``: its processes' DATABASE_POOL_SIZE (None: the
    server's default)."""
    environment = dict(os.environ) | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "DEBUG": "false",
        "STATIC_ROOT": str(folder / "static"),
        "READ_CACHE": "on" if cache else "off",
    }
    environment.pop("DATABASE_POOL_SIZE", None)
    if pool is not None:
        environment["DATABASE_POOL_SIZE"] = str(pool)
    return environment


def sessions_opened() -> int:
    """PostgreSQL sessions opened on the scratch database so far (``pg_stat_database``)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        row = cursor.fetchone()
    return int(row[0]) if row else 0


@contextmanager
def site(command: Sequence[str], environment: dict[str, str], log: Path) -> Iterator[str]:
    port = closed_port()
    full = [part.replace("{port}", str(port)) for part in command]
    with log.open("wb") as out:
        process = subprocess.Popen(
            full,
            cwd=REPOSITORY_ROOT,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/favicon.ico", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    tail = log.read_text(errors="replace")[-3000:]
                    raise SystemExit(f"{full[0:3]} did not start:\n{tail}") from None
                time.sleep(0.2)
        yield url
    finally:
        process_stop(process, timeout=20)


@contextmanager
def worker(environment: dict[str, str], log: Path) -> Iterator[None]:
    """A worker of one process on the queues the ladder uses, while the block runs."""
    try:
        process = worker_start(
            environment=environment,
            log_path=log,
            queues="interactive,default,matches,ratings",
            node_name=f"web-reads-{os.getpid()}@localhost",
        )
    except WorkerError as error:
        raise SystemExit(str(error)) from None
    try:
        yield
    finally:
        process.stop()


# ---------------------------------------------------------------- load


@dataclass
class Load:
    seconds: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    hits: int = 0
    hit_seconds: list[float] = field(default_factory=list)
    generations: tuple[int, int] = (0, 0)
    elapsed: float = 0.0


def client(
    url: str, reads: Sequence[str], stop: float, seed: int, load: Load, session: str = ""
) -> None:
    """One keep-alive client; with ``session``, signed in by that session cookie on the
    pages (the API reads go without it, as a script's would)."""
    host, port = url.removeprefix("http://").split(":")
    pick = random.Random(seed)
    mine: list[float] = []
    errors: dict[str, int] = {}
    hits = 0
    hit_seconds: list[float] = []
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    while time.monotonic() < stop:
        path = pick.choice(reads)
        started = time.perf_counter()
        hit = False
        try:
            headers = {"Accept-Language": "en"}
            if session and not path.startswith("/api/"):
                headers["Cookie"] = f"{settings.SESSION_COOKIE_NAME}={session}"
            conn.request("GET", path, headers=headers)
            answer = conn.getresponse()
            answer.read()
            status = answer.status
            hit = answer.getheader(HIT_HEADER, "") == "hit"
            if answer.getheader("Connection", "").lower() == "close":
                conn.close()
        except (OSError, http.client.HTTPException) as exc:
            status = 0
            errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
            conn.close()
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
        mine.append(time.perf_counter() - started)
        if status and hit:
            hits += 1
            hit_seconds.append(mine[-1])
        if status >= 400:
            key = f"{status} {path}"
            errors[key] = errors.get(key, 0) + 1
    conn.close()
    with LOCK:
        load.seconds.extend(mine)
        load.hits += hits
        load.hit_seconds.extend(hit_seconds)
        for key, count in errors.items():
            load.errors[key] = load.errors.get(key, 0) + count


LOCK = threading.Lock()


def client_process(
    url: str, reads: Sequence[str], stop: float, seeds: Sequence[int], sessions: Sequence[str]
) -> Load:
    """Clients as threads of one process (a share of the run's clients); what they saw."""
    load = Load()
    threads = [
        threading.Thread(
            target=client,
            args=(url, reads, stop, seed, load, sessions[seed] if sessions else ""),
        )
        for seed in seeds
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return load


def load_run(
    url: str,
    reads: Sequence[str],
    *,
    clients: int,
    seconds: float,
    processes: int = 4,
    sessions: Sequence[str] = (),
) -> Load:
    """``clients`` keep-alive clients for ``seconds``, spread over ``processes`` processes
    (threads of one Python process would queue for its GIL and time their own waiting)."""
    load = Load()
    before = generations()
    started = time.monotonic()
    stop = started + seconds
    shares = [list(range(n, clients, processes)) for n in range(min(processes, clients))]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=len(shares), mp_context=context) as pool:
        futures = [
            pool.submit(client_process, url, reads, stop, share, sessions) for share in shares
        ]
        parts = [future.result() for future in futures]
    for part in parts:
        load.seconds.extend(part.seconds)
        load.hits += part.hits
        load.hit_seconds.extend(part.hit_seconds)
        for key, count in part.errors.items():
            load.errors[key] = load.errors.get(key, 0) + count
    load.elapsed = time.monotonic() - started
    after = generations()
    load.generations = (after[0] - before[0], after[1] - before[1])
    return load


def generations() -> tuple[int, int]:
    """The read cache's two generations now (league/reads_generation.py)."""
    return (reads_generation(GENERATION_KEY) or 0, reads_generation(PROGRESS_KEY) or 0)


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000 if ordered else 0.0


def report(name: str, load: Load) -> tuple[float, float]:
    rps = len(load.seconds) / load.elapsed
    p50, p95 = percentile(load.seconds, 0.5), percentile(load.seconds, 0.95)
    top = max(load.seconds, default=0.0) * 1000
    errors = sum(load.errors.values())
    say(
        f"  {name}: {rps:7.1f} requests/s, p50 {p50:6.1f} ms, p95 {p95:6.1f} ms, "
        f"max {top:6.1f} ms, {len(load.seconds)} requests, {errors} errors; "
        f"loadavg {loadavg()}"
    )
    moved = ", ".join(f"{n / load.elapsed:.1f}/s" for n in load.generations)
    say(
        f"    served from the read cache: {load.hits / max(1, len(load.seconds)):.0%} "
        f"(those: p50 {percentile(load.hit_seconds, 0.5):.1f} ms, "
        f"p95 {percentile(load.hit_seconds, 0.95):.1f} ms); "
        f"reads generations moved on (all writes but progress, all): {moved}"
    )
    for key, count in sorted(load.errors.items())[:5]:
        say(f"    error {key}: {count}")
    return rps, p95


def signed_in_sessions(count: int) -> list[str]:
    """``count`` people signed in (a session each, in the store the servers share)."""
    from django.contrib.auth.models import User
    from django.test import Client

    sessions = []
    for n in range(count):
        person, _ = User.objects.get_or_create(username=f"reader-{n}")
        browser = Client()
        browser.force_login(person)
        sessions.append(browser.cookies[settings.SESSION_COOKIE_NAME].value)
    return sessions


def server_measured(
    label: str,
    command: Sequence[str],
    environment: dict[str, str],
    folder: Path,
    reads: Sequence[str],
    args: argparse.Namespace,
    sessions: Sequence[str] = (),
) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float] | None]:
    say(f"{label}: {' '.join(command[1:4])} ...")
    log = folder / f"{label[:3].strip('() ')}.log"
    with site(command, environment, log) as url:
        shape = {"clients": args.clients, "processes": args.client_processes}
        load_run(url, reads, seconds=2, **shape)  # warm: imports, connections
        opened = sessions_opened()
        served = 0
        trivial = report(
            "trivial (/favicon.ico)",
            load_run(url, ["/favicon.ico"], seconds=args.seconds, **shape),
        )
        mixed_load = load_run(url, reads, seconds=args.seconds, **shape)
        mixed = report(f"mixed reads ({len(reads)} URLs), anonymous", mixed_load)
        served += len(mixed_load.seconds)
        signed = None
        if sessions:
            signed_load = load_run(url, reads, seconds=args.seconds, sessions=sessions, **shape)
            signed = report(
                f"mixed reads ({len(reads)} URLs), signed in (the pages with a session)",
                signed_load,
            )
            served += len(signed_load.seconds)
        opened = sessions_opened() - opened
        say(
            f"    PostgreSQL sessions opened during the mixed runs: {opened}, "
            f"{1000 * opened / max(1, served):.1f} per 1,000 requests (the ladder's worker's "
            "too: it keeps a pool)"
        )
    errors = [
        line
        for line in log.read_text(errors="replace").splitlines()
        if "Traceback" in line or " ERROR " in line
    ]
    for line in errors[:5]:
        say(f"    server log: {line}")
    return trivial, mixed, signed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15, help="seconds of each load run")
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients")
    parser.add_argument(
        "--client-processes", type=int, default=4, help="processes the clients run in"
    )
    parser.add_argument(
        "--processes", type=int, default=None, help="web processes in (b) (default: the server's)"
    )
    parser.add_argument(
        "--ladder",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="a worker plays the ladder's matches throughout",
    )
    parser.add_argument(
        "--pools",
        default="default",
        help="DATABASE_POOL_SIZE of (b)'s web processes, comma-separated: (b) is measured once "
        "with each (default: the server's own)",
    )
    args = parser.parse_args()
    if not 1 <= args.seconds <= 600 or not 1 <= args.clients <= 200:
        raise SystemExit("--seconds: 1 to 600; --clients: 1 to 200")
    pools = pools_from(args.pools)
    if not os.environ.get("REDIS_URL"):
        raise SystemExit("REDIS_URL is needed: the caches, the broker and the channel layer")

    with scratch_database("web_reads_bench"):
        say(f"database: {connection.settings_dict['NAME']}; loadavg {loadavg()}")
        tournament_id = league_played()
        ladder = ladder_opened()
        with tempfile.TemporaryDirectory(prefix="web-reads-") as name:
            folder = Path(name)
            subprocess.run(
                [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                cwd=REPOSITORY_ROOT,
                env=environment_for(folder, cache=True),
                check=True,
                timeout=300,
            )
            with (
                worker(environment_for(folder, cache=True), folder / "worker.log")
                if args.ladder
                else contextmanager(lambda: iter([None]))()
            ):
                if args.ladder:
                    ladder_kick()
                    time.sleep(5)  # a few ladder matches finished: records to read
                reads = reads_of(tournament_id, ladder)
                sessions = signed_in_sessions(args.clients)
                before = Match.objects.filter(status=MatchStatus.FINISHED).count()
                started = time.monotonic()
                daphne = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", "{port}"]
                a = server_measured(
                    "(a) reference, daphne, caches off",
                    [*daphne, "config.asgi:application"],
                    environment_for(folder, cache=False),
                    folder,
                    reads,
                    args,
                    sessions,
                )
                web = [sys.executable, "-m", "config.web_server", "--host", "127.0.0.1"]
                web += ["--port", "{port}"]
                processes = args.processes or processes_from(os.environ, None, os.cpu_count() or 1)
                productions = [
                    (
                        pool,
                        server_measured(
                            f"(b) production, {processes} uvicorn processes, caches on, "
                            f"DATABASE_POOL_SIZE {'default' if pool is None else pool}",
                            [*web, "--processes", str(processes)],
                            environment_for(folder, cache=True, pool=pool),
                            folder,
                            reads,
                            args,
                            sessions,
                        ),
                    )
                    for pool in pools
                ]
                played = Match.objects.filter(status=MatchStatus.FINISHED).count() - before
                minutes = (time.monotonic() - started) / 60
                if args.ladder:
                    say(
                        f"ladder: {played} matches finished during the runs "
                        f"({played / minutes:.0f} a minute)"
                    )
        for pool, b in productions:
            say(f"(b) with DATABASE_POOL_SIZE {'default' if pool is None else pool}:")
            verdicts(a, b)
    return 0


Figures = tuple[float, float]


def verdicts(
    a: tuple[Figures, Figures, Figures | None], b: tuple[Figures, Figures, Figures | None]
) -> None:
    """The ratios (b)/(a), the target for each kind of reader, signed in/anonymous."""
    for kind, (ra, pa), (rb, pb) in (("trivial", a[0], b[0]), ("mixed", a[1], b[1])):
        say(f"  ratio (b)/(a), {kind}: requests/s x{rb / ra:.2f}, p95 x{pb / pa:.2f}")
    for who, figures in (("anonymous", b[1]), ("signed in", b[2])):
        if figures is None:
            continue
        rps, p95 = figures
        verdict = "met" if rps >= TARGET_RPS and p95 < TARGET_P95_MS else "missed"
        say(
            f"  target >= {TARGET_RPS} mixed reads/s at p95 < {TARGET_P95_MS:.0f} ms, "
            f"{who}: {verdict} ({rps:.0f}/s, {p95:.1f} ms)"
        )
    if b[2] is not None:
        say(
            f"  ratio signed in/anonymous in (b): requests/s x{b[2][0] / b[1][0]:.2f}, "
            f"p95 x{b[2][1] / b[1][1]:.2f}"
        )


def pools_from(text: str) -> list[int | None]:
    """``--pools``: "default" or pool sizes (0: a connection a request), comma-separated."""
    pools: list[int | None] = []
    for part in text.split(","):
        part = part.strip()
        if part == "default":
            pools.append(None)
        elif part.isdigit() and int(part) <= 100:
            pools.append(int(part))
        else:
            raise SystemExit(f"--pools: 'default' or sizes 0 to 100, comma-separated, not {part!r}")
    return pools


if __name__ == "__main__":
    raise SystemExit(main())
