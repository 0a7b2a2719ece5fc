"""Move latency at a table of four people: from a click on a card in one browser to the
moment the other three browsers' pages show that card on the table.

Why this module is long: one measurement end to end, read top to bottom: the processes it
starts, the probe each page runs, the moves it plays, the load beside them, and the
matching of clicks to cards that makes the figures; split up, each part would only make
sense with the others.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.table_latency
    python -m bench.table_latency --moves 300 --seconds 600 --load-tables 8
    python -m bench.table_latency --no-lane   # the reference of issue 32: no interactive lane

It makes a scratch database of its own (``<name>_table_latency_bench``, dropped at the
end), starts production's web server (``python -m config.web_server``: uvicorn, HTTP and
WebSockets, its processes as ``./scripts/run`` has them) and a Celery worker on it (every queue,
``--concurrency`` processes) with, unless ``--no-lane``, the `interactive` lane's own worker
of one process as scripts/run starts it (issue 32: the same run without it is the
reference), and four headless
Chromium sessions (tests/web/browser.py's flags: nothing leaves 127.0.0.1), each signed in
as one of four people seated at a Kingen table (opened and accepted through the table
services). The bench then clicks, in the browser of the person whose turn it is, the
lowest legal card, and waits until the three other pages show it before the next click:
each move is measured on its own, as people play.

Each page measures with its own clock (``performance.timeOrigin + performance.now()``; all
the browsers run on this machine): a listener records the click on a card; a
MutationObserver on the table records when a card first appears among the cards played;
the page's WebSocket records when a match update arrives, and the resource timing entries
give the action's POST and the view's refetch. Printed, for two runs in this process:

- **(a) reference**: nothing else happening but the table;
- **(b) under load**: while built-in bots play rounds of Kingen matches on the same worker
  (``--load-tables`` matches a round, a new round as soon as the last one ends, started
  through the league's services);

the time from a click to all three other pages showing the card (per move: the slowest
page) and to each page (per page and move), at p50/p95/max, the ratio (b)/(a), and where
the time goes: the click to the update on the socket (the action's POST on the server and
the channel layer's push), the update to the view's refetch being sent, the refetch, and
the page's drawing. Target (issue 16): p95 under 200 ms in (b).

Traffic goes to 127.0.0.1 only; each run is bounded by ``--moves`` and ``--seconds``. The
site's rate limit of moves is raised for the bench's four people (RATE_LIMITS), who click
faster than anyone plays. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import math
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection, connections  # noqa: E402

import league.tasks  # noqa: E402, F401 (registers the tasks this process sends)
from bench.league import matches_queue  # noqa: E402
from bench.scratch_database import scratch_database  # noqa: E402
from config.configuration import database_url_for  # noqa: E402
from league.models import Match, MatchStatus, SeatInvitation  # noqa: E402
from league.services.tables import seat_invitation_accept, table_open  # noqa: E402
from tests.celery_workers import (  # noqa: E402
    CeleryWorkerProcess,
    WorkerError,
    process_stop,
    worker_start,
)
from tests.servers import closed_port  # noqa: E402
from tests.web.browser import browser_unavailable_reason, chromium_start  # noqa: E402

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

REPOSITORY_ROOT = Path(__file__).resolve().parent.parent
GAME = "kingen"
PASSWORD = "a long pass phrase 42"
PEOPLE = ("north", "east", "south", "west")
MOVE_SECONDS = 3600
"""The table's clock: the bench never waits that long, so no move is played for anyone."""
SHOWN_WAIT_SECONDS = 10.0
"""How long the bench waits for a move to reach the three other pages before it counts
it as not shown and goes on."""
RANKS = "23456789TJQKA"

PROBE = """
(() => {
  const now = () => performance.timeOrigin + performance.now();
  performance.setResourceTimingBufferSize(100000);
  const bench = { clicks: [], shown: [], updates: [], closes: [] };
  window.__bench = bench;
  document.addEventListener("click", (event) => {
    const button = event.target.closest ? event.target.closest("button.card-button") : null;
    if (button) bench.clicks.push([button.dataset.card, now()]);
  }, true);
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("close", () => bench.closes.push(now()));
      this.addEventListener("message", (event) => {
        const at = now();
        try {
          if (JSON.parse(event.data).type === "update") bench.updates.push(at);
        } catch (error) { /* not an update */ }
      });
    }
  };
  let before = new Set();
  const look = () => {
    const at = now();
    const cards = new Set([...document.querySelectorAll("#table .centre .played [data-card]")]
      .map((e) => e.dataset.card));
    for (const card of cards) if (!before.has(card)) bench.shown.push([card, at]);
    before = cards;
  };
  document.addEventListener("DOMContentLoaded", () => {
    const table = document.getElementById("table");
    if (table) new MutationObserver(look).observe(table, { childList: true, subtree: true });
  });
})();
"""
"""Installed in every page before its own scripts: what each page measures, on its clock."""

PAGE_STATE = """
const table = document.getElementById("table");
if (!table || table.dataset.ready !== "true") return null;
return {
  yourTurn: table.dataset.yourTurn === "true",
  position: Number.parseInt(table.dataset.position || "-1", 10),
  legal: [...document.querySelectorAll(".seat.mine button.card-button.legal")]
    .map((b) => b.dataset.card),
  shown: window.__bench.shown.length,
};
"""

PAGE_RECORD = """
const entries = performance.getEntriesByType("resource").map((e) => ({
  name: e.name, start: performance.timeOrigin + e.startTime,
  responseStart: performance.timeOrigin + e.responseStart,
  end: performance.timeOrigin + e.responseEnd, status: e.responseStatus ?? 0,
}));
return { ...window.__bench, entries };
"""


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------- processes


def site_start(environment: dict[str, str], folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Production's web server (uvicorn, config/web_server.py, its default processes: two
    a core with Redis) on a free port of 127.0.0.1, once it answers. Until 2026-11-28 this
    bench served with daphne, which production does not run."""
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=REPOSITORY_ROOT,
        env=environment,
        check=True,
        timeout=300,
    )
    port = closed_port()
    command = [sys.executable, "-m", "config.web_server", "--host", "127.0.0.1"]
    with (folder / "web-server.log").open("wb") as log:
        process = subprocess.Popen(
            [*command, "--port", str(port)],
            cwd=REPOSITORY_ROOT,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/accounts/login/", timeout=2) as response:
                if response.status == 200:
                    return process, url
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process_stop(process, timeout=10)
                log_text = (folder / "web-server.log").read_text(errors="replace")[-3000:]
                raise SystemExit(f"the web server did not start:\n{log_text}") from None
            time.sleep(0.2)


@contextmanager
def servers(concurrency: int, *, lane: bool = True) -> Iterator[str]:
    """The site and a worker on the scratch database; yields the site's URL. With ``lane``
    (scripts/run now), also the `interactive` lane's own worker of one process, which
    bot-only work never occupies; without it (the reference, scripts/run before the lane),
    the people's table shares the one worker's processes with the bot-only matches."""
    environment = dict(os.environ) | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "DEBUG": "false",
        "RATE_LIMITS": "actions=100000/minute,sign_in=100000/minute",
    }
    with tempfile.TemporaryDirectory(prefix="table-latency-") as name:
        folder = Path(name)
        environment["STATIC_ROOT"] = str(folder / "static")
        layout = [("interactive,default,matches,ratings", concurrency, "general")]
        if lane:
            layout.append(("interactive", 1, "interactive"))
        started: list[CeleryWorkerProcess] = []
        try:
            try:
                for queues, processes, name in layout:
                    started.append(
                        worker_start(
                            environment=environment,
                            log_path=folder / f"{name}-worker.log",
                            queues=queues,
                            concurrency=processes,
                            node_name=f"table-latency-{name}-{os.getpid()}@localhost",
                        )
                    )
            except WorkerError as error:
                raise SystemExit(str(error)) from None
            site, url = site_start(environment, folder)
            try:
                yield url
            finally:
                process_stop(site, timeout=20)
        finally:
            for worker in started:
                worker.stop()
            logs_complain(folder)


def logs_complain(folder: Path) -> None:
    """Print the site's and the worker's errors and warnings, if any (the figures of a run
    with failed requests or dropped sockets are not the path's)."""
    for name in ("web-server.log", "worker.log"):
        path = folder / name
        lines = path.read_text(errors="replace").splitlines() if path.exists() else []
        bad = [line for line in lines if any(w in line for w in ("ERROR", "WARNING", "Trace"))]
        if bad:
            say(f"{name}: {len(bad)} lines of errors and warnings, the last ones:")
            for line in bad[-8:]:
                say(f"  {line[:200]}")


# ---------------------------------------------------------------- the table and its pages


@dataclass
class Page:
    """One person's browser at their seat."""

    username: str
    driver: WebDriver
    seat: int = -1


def table_of_four(people: Sequence[User]) -> int:
    """A live Kingen table: the first person hosts and keeps a seat for each of the others,
    who accept (the table services, as the pages call them). Returns its match id."""
    host, *guests = people
    match = table_open(
        actor=host,
        game=GAME,
        seats=["me", *[f"invite:{guest.get_username()}" for guest in guests]],
        move_seconds=MOVE_SECONDS,
    )
    for guest in guests:
        code = SeatInvitation.objects.get(match=match, invitee=guest).code
        seat_invitation_accept(user=guest, code=code)
    return match.pk


def pages_open(url: str, people: Sequence[User], profiles: Path) -> list[Page]:
    """A signed-in browser for each person (through the log-in page)."""
    pages = []
    for person in people:
        username = person.get_username()
        driver = chromium_start(profiles / username)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
        driver.get(f"{url}/accounts/login/")
        driver.find_element("id", "id_username").send_keys(username)
        driver.find_element("id", "id_password").send_keys(PASSWORD)
        driver.find_element("css selector", "main button[type=submit]").click()
        wait_until(lambda d=driver: d.find_elements("css selector", ".account-nav strong"), 30)
        pages.append(Page(username, driver))
    return pages


def wait_until(check: Any, seconds: float) -> Any:
    """Ask ``check()`` every 10 ms until it answers something true; None after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            found = check()
        except Exception:  # a page between two documents: ask again
            found = None
        if found:
            return found
        time.sleep(0.01)
    return None


def seats_take(url: str, pages: Sequence[Page], match_id: int) -> None:
    """Each page opens its person's seat at ``match_id`` and waits for the socket."""
    seats = {
        seat.competitor.user.get_username(): seat.seat
        for seat in Match.objects.get(pk=match_id).seats.select_related("competitor__user")
        if seat.competitor.user is not None  # every seat is a person's at this table
    }
    for page in pages:
        page.seat = seats[page.username]
        page.driver.get(f"{url}/matches/{match_id}/seats/{page.seat}/")
    for page in pages:
        live = wait_until(
            lambda p=page: p.driver.execute_script(
                "return document.querySelector('[data-role=connection]')?.textContent === 'live'"
                " && document.getElementById('table').dataset.ready === 'true'"
            ),
            60,
        )
        if not live:
            raise SystemExit(f"{page.username}'s page did not connect")


def lowest(cards: Sequence[str]) -> str:
    return min(cards, key=lambda card: (RANKS.index(card[0]), card[1]))


def moved_on(watchers: Sequence[Page], before: Sequence[int]) -> bool:
    """Each of ``watchers`` shows a later position of the game than ``before``."""
    return all(
        (page.driver.execute_script(PAGE_STATE) or {"position": -1})["position"] > position
        for page, position in zip(watchers, before, strict=True)
    )


@dataclass
class Run:
    """What the pages recorded in one run."""

    moves: int = 0
    not_shown: int = 0
    seconds: float = 0.0
    records: dict[int, dict[str, Any]] = field(default_factory=dict)
    clicks: list[tuple[int, str, float]] = field(default_factory=list)
    load_matches: int = 0


def play(pages: Sequence[Page], match_id: int, *, moves: int, seconds: float) -> Run:
    """Click the lowest legal card of the seat to act, then wait until the three other pages
    show it; ``moves`` moves or ``seconds`` at most."""
    by_seat = {page.seat: page for page in pages}
    run = Run()
    began = time.monotonic()
    while run.moves < moves and time.monotonic() - began < seconds:
        match = Match.objects.only("status", "waiting_seat").get(pk=match_id)
        if match.status == MatchStatus.FINISHED:
            break
        if match.waiting_seat is None:
            time.sleep(0.01)  # the worker deals
            continue
        mover = by_seat[match.waiting_seat]
        state = wait_until(
            lambda m=mover: (
                (s := m.driver.execute_script(PAGE_STATE)) and s["yourTurn"] and s["legal"] and s
            ),
            30,
        )
        if not state:
            raise SystemExit(f"{mover.username}'s page never showed their move")
        watchers = [page for page in pages if page is not mover]
        positions = [page.driver.execute_script(PAGE_STATE)["position"] for page in watchers]
        card = lowest(state["legal"])
        try:
            mover.driver.find_element(
                "css selector", f'.seat.mine button.card-button.legal[data-card="{card}"]'
            ).click()
        except Exception:  # redrawn under the click: look again
            continue
        run.moves += 1
        if not wait_until(lambda w=watchers, b=positions: moved_on(w, b), SHOWN_WAIT_SECONDS):
            run.not_shown += 1
    run.seconds = time.monotonic() - began
    for page in pages:
        run.records[page.seat] = dict(page.driver.execute_script(PAGE_RECORD))
    return run


# ---------------------------------------------------------------- load


class BotRounds(threading.Thread):
    """Rounds of Kingen matches between built-in bots, one after the other on the worker,
    until stopped: ``tables`` matches a round, started through the league's services."""

    def __init__(self, tables: int) -> None:
        super().__init__(daemon=True)
        self.tables = tables
        self.stopping = threading.Event()
        self.finished = 0
        self.failure = ""

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                ids = matches_queue(self.tables, send=True)
                while not self.stopping.is_set():
                    done = Match.objects.filter(
                        pk__in=ids, status__in=(MatchStatus.FINISHED, MatchStatus.ERROR)
                    ).count()
                    if done == len(ids):
                        self.finished += done
                        break
                    time.sleep(0.1)
        except Exception as exc:  # reported with the figures
            self.failure = repr(exc)
        finally:
            connections.close_all()

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=60)


# ---------------------------------------------------------------- figures


@dataclass
class Latencies:
    everywhere: list[float] = field(default_factory=list)  # per move: the slowest page
    per_page: list[float] = field(default_factory=list)
    to_update: list[float] = field(default_factory=list)  # click -> socket update
    update_to_fetch: list[float] = field(default_factory=list)  # update -> refetch sent
    fetch: list[float] = field(default_factory=list)  # refetch sent -> answered
    drawing: list[float] = field(default_factory=list)  # answered -> card in the page
    socket_drawing: list[float] = field(default_factory=list)  # update -> card, no view between
    action_post: list[float] = field(default_factory=list)  # the mover's POST
    unmatched: int = 0
    socket_closes: int = 0
    views_failed: int = 0  # view fetches answered with an error
    views: int = 0


def latencies(run: Run) -> Latencies:
    """Each click matched with the same card's appearance in each other page (the n-th time
    the first time the card appears there after the click and before the next click: the
    bench clicks once every page shows the move). A card that is not drawn on a page
    (before the pages drew cards from the socket's update, the last card of a deal) is
    counted apart. A card drawn from the socket's update has no view answered between the
    update and its appearance; one drawn after a view's answer is timed through the view."""
    found = Latencies()
    clicks = sorted(
        (at, seat, card) for seat, record in run.records.items() for card, at in record["clicks"]
    )
    appearances: dict[int, dict[str, list[float]]] = {}
    for seat, record in run.records.items():
        per_card: dict[str, list[float]] = {}
        for card, at in record["shown"]:
            per_card.setdefault(card, []).append(at)
        appearances[seat] = per_card
    for record in run.records.values():
        found.socket_closes += len(record["closes"])
        views = [e for e in record["entries"] if "/view/" in e["name"]]
        found.views += len(views)
        found.views_failed += sum(1 for e in views if e["status"] not in (0, 200))
    for number, (at, seat, card) in enumerate(clicks):
        until = clicks[number + 1][0] if number + 1 < len(clicks) else math.inf
        until = min(until, at + SHOWN_WAIT_SECONDS * 1000)
        actions = [
            e for e in run.records[seat]["entries"] if "/actions/" in e["name"] and e["start"] >= at
        ]
        if actions:
            found.action_post.append(actions[0]["end"] - actions[0]["start"])
        slowest = 0.0
        complete = True
        for watcher, per_card in appearances.items():
            if watcher == seat:
                continue
            times = [t for t in per_card.get(card, []) if at <= t < until]
            if not times:
                found.unmatched += 1
                complete = False
                continue
            shown = times[0]
            found.per_page.append(shown - at)
            slowest = max(slowest, shown - at)
            record = run.records[watcher]
            updates = [u for u in record["updates"] if at <= u <= shown]
            views = [
                e
                for e in record["entries"]
                if "/view/" in e["name"] and e["start"] >= at and e["end"] <= shown
            ]
            if updates:
                found.to_update.append(updates[0] - at)
            if updates and views and views[-1]["start"] >= updates[0]:
                view = views[-1]
                found.update_to_fetch.append(view["start"] - updates[0])
                found.fetch.append(view["end"] - view["start"])
                found.drawing.append(shown - view["end"])
            elif updates:
                found.socket_drawing.append(shown - updates[0])
        if complete:
            found.everywhere.append(slowest)
    return found


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def figures(values: Sequence[float]) -> str:
    if not values:
        return "none"
    return (
        f"p50 {percentile(values, 0.5):6.1f}  p95 {percentile(values, 0.95):6.1f}  "
        f"max {max(values):6.1f} ms  (n={len(values)})"
    )


def report(name: str, run: Run, found: Latencies) -> None:
    say(f"{name}: {run.moves} moves in {run.seconds:.1f} s; load: {os.getloadavg()[0]:.1f}")
    if run.load_matches:
        say(f"  bot matches finished meanwhile     {run.load_matches}")
    if run.not_shown or found.unmatched:
        say(
            f"  moves not on the other pages within {SHOWN_WAIT_SECONDS:g} s: {run.not_shown}; "
            f"page samples without the card drawn: {found.unmatched}"
        )
    say(
        f"  view fetches {found.views} ({found.views_failed} failed), "
        f"sockets closed {found.socket_closes}"
    )
    say(f"  click -> all three pages show it   {figures(found.everywhere)}")
    say(f"  click -> one page shows it         {figures(found.per_page)}")
    say(f"    click -> update on the socket    {figures(found.to_update)}")
    say(f"    update -> view refetch sent      {figures(found.update_to_fetch)}")
    say(f"    view refetch (request, answer)   {figures(found.fetch)}")
    say(f"    answer -> card drawn             {figures(found.drawing)}")
    say(f"    update -> card drawn, no view    {figures(found.socket_drawing)}")
    say(f"  the mover's action POST            {figures(found.action_post)}")


def one_run(
    name: str,
    url: str,
    pages: Sequence[Page],
    people: Sequence[User],
    args: argparse.Namespace,
    load: BotRounds | None = None,
) -> Latencies:
    match_id = table_of_four(people)
    seats_take(url, pages, match_id)
    if load is not None:
        load.start()
    try:
        run = play(pages, match_id, moves=args.moves, seconds=args.seconds)
    finally:
        if load is not None:
            load.stop()
    if load is not None:
        run.load_matches = load.finished
        if load.failure:
            say(f"  the bot rounds failed: {load.failure}")
    found = latencies(run)
    report(name, run, found)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=300, help="moves measured per run (cap)")
    parser.add_argument("--seconds", type=float, default=600, help="seconds per run (cap)")
    parser.add_argument(
        "--load-tables", type=int, default=8, help="bot matches per round in run (b)"
    )
    parser.add_argument("--concurrency", type=int, default=2, help="the worker's processes")
    parser.add_argument(
        "--no-lane",
        dest="lane",
        action="store_false",
        help="no worker of the interactive lane (the reference: scripts/run before the lane)",
    )
    args = parser.parse_args()
    unavailable = browser_unavailable_reason()
    if unavailable:
        raise SystemExit(f"no browser: {unavailable}")
    if not os.environ.get("REDIS_URL"):
        raise SystemExit("REDIS_URL is needed: the site and the worker share its channel layer")

    pages: list[Page] = []
    with scratch_database("table_latency_bench"):
        try:
            say(f"database: {connection.vendor}, {connection.settings_dict['NAME']}")
            people = [User.objects.create_user(name, password=PASSWORD) for name in PEOPLE]
            with (
                servers(args.concurrency, lane=args.lane) as url,
                tempfile.TemporaryDirectory() as profiles,
            ):
                pages = pages_open(url, people, Path(profiles))
                lane = "and the interactive lane's of 1" if args.lane else "no interactive lane"
                say(
                    f"site {url}, a worker of {args.concurrency}, {lane}, {len(pages)} browsers;"
                    f" load {os.getloadavg()[0]:.2f}"
                )
                quiet = one_run("(a) reference", url, pages, people, args)
                busy = one_run(
                    f"(b) with rounds of {args.load_tables} bot matches",
                    url,
                    pages,
                    people,
                    args,
                    load=BotRounds(args.load_tables),
                )
                for share, label in ((0.5, "p50"), (0.95, "p95")):
                    a = percentile(quiet.everywhere, share)
                    b = percentile(busy.everywhere, share)
                    say(f"ratio (b)/(a), {label}: {b / a:.2f}" if a else f"{label}: no figures")
                p95 = percentile(busy.everywhere, 0.95)
                verdict = "met" if p95 < 200 else "missed"
                say(f"target p95 < 200 ms in (b): {verdict} ({p95:.1f} ms)")
                for page in pages:
                    page.driver.quit()
                pages = []
        finally:
            for page in pages:
                page.driver.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
